"""Files on disk: the state directory's listing, and the ignore-aware walk other domains share.

Named `files`, not `storage`, so it is never confused with the database (`svc.store`)."""

from __future__ import annotations

from ..lazy import LazyExports

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
