"""Files on disk: the state directory's listing, and the ignore-aware walk other domains share.

Named `files`, not `storage`, so it is never confused with the database (`svc.store`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .listing import DEFAULT_LIMIT as DEFAULT_LIMIT
    from .listing import MAX_LIMIT as MAX_LIMIT
    from .listing import StoragePathInvalid as StoragePathInvalid
    from .listing import StoragePathNotFound as StoragePathNotFound
    from .listing import list_storage_files as list_storage_files
    from .listing import safe_relative as safe_relative
    from .walk import WalkEntry as WalkEntry
    from .walk import walk_files as walk_files

_exports = LazyExports(
    __name__,
    {
        ".listing": [
            "DEFAULT_LIMIT",
            "MAX_LIMIT",
            "StoragePathInvalid",
            "StoragePathNotFound",
            "list_storage_files",
            "safe_relative",
        ],
        ".walk": [
            "WalkEntry",
            "walk_files",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
