"""Files in the engine's state directory: listing, and the ignore-aware walk other domains share."""

from .listing import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    StoragePathInvalid,
    StoragePathNotFound,
    list_storage_files,
    safe_relative,
)
from .walk import WalkEntry, walk_files

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "StoragePathInvalid",
    "StoragePathNotFound",
    "WalkEntry",
    "list_storage_files",
    "safe_relative",
    "walk_files",
]
