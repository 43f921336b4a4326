"""svc-engine: a local or headless agent automation runtime on Trio.

The embedding API::

    import svc

    async with svc.open_engine(svc.Settings.load(), serve_http=True) as engine:
        ...
"""

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .clock import Clock, SystemClock, TrioClock
from .errors import SvcError
from .settings import Settings

if TYPE_CHECKING:
    from .engine import Engine, open_engine


def __getattr__(name: str) -> Any:
    # The engine pulls in the HTTP server and every domain package; importing it
    # lazily keeps `import svc` (and small CLI commands) light.
    if name in ("Engine", "open_engine"):
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'svc' has no attribute {name!r}")


__all__ = [
    "Clock",
    "Engine",
    "Settings",
    "SvcError",
    "SystemClock",
    "TrioClock",
    "__version__",
    "open_engine",
]
