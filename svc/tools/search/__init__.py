"""Web search backends for the ``websearch`` tool."""

from .backend import SearchBackend
from .brave import BraveSearch
from .config import SearchConfig
from .exa import ExaSearch
from .hosted import HostedSearch
from .results import SearchHit
from .searxng import SearxngSearch
from .selection import BACKENDS, select_backend

__all__ = [
    "BACKENDS",
    "BraveSearch",
    "ExaSearch",
    "HostedSearch",
    "SearchBackend",
    "SearchConfig",
    "SearchHit",
    "SearxngSearch",
    "select_backend",
]
