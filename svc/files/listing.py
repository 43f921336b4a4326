"""``GET /global/storage/files``: the files kept in the engine's state directory.

Channel uploads, exports and other stored files live under the state
directory. A listing names a sub-path relative to that root; an absolute path
or one with a ``..`` component is refused, so a caller can never list outside
the root. Hidden and git-ignored entries are skipped, as in every walk.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from ..errors import NotFound, ValidationFailed
from .walk import walk_files

DEFAULT_LIMIT = 500
MAX_LIMIT = 5000


class StoragePathNotFound(NotFound):
    """The storage path does not exist."""

    code = "STORAGE_PATH_NOT_FOUND"


class StoragePathInvalid(ValidationFailed):
    """The storage path is not valid."""

    code = "STORAGE_PATH_INVALID"


def safe_relative(path: str | None) -> PurePosixPath:
    """``path`` as a clean relative path; raises :class:`StoragePathInvalid` for anything
    escaping."""
    raw = (path or "").strip().replace("\\", "/")
    if not raw:
        return PurePosixPath()
    if any(ord(ch) < 32 for ch in raw):
        # The OS refuses a NUL in a path (ValueError, a 500); no stored file has control characters.
        raise StoragePathInvalid("`path` must not contain control characters", field="path")
    if raw.startswith("/") or PureWindowsPath(raw).drive or PureWindowsPath(raw).is_absolute():
        raise StoragePathInvalid("`path` must be relative to the storage root", field="path")
    parts = PurePosixPath(raw).parts
    if ".." in parts:
        raise StoragePathInvalid("`path` must not contain `..`", field="path")
    return PurePosixPath(*[p for p in parts if p not in ("", ".")])


def list_storage_files(
    root: Path, path: str | None = None, *, limit: int = DEFAULT_LIMIT
) -> dict[str, Any]:
    """The listing body: ``{root, base, count, limit, truncated, files: [...]}``.

    Files are sorted by path; each has ``path`` (relative to the root),
    ``relative_to_base``, ``size_bytes`` and ``modified_at_ms``.
    """
    limit = max(1, min(limit, MAX_LIMIT))
    relative = safe_relative(path)
    root = root.resolve()
    base = (root / relative).resolve() if relative.parts else root
    if not base.is_relative_to(root):
        # A symbolic link inside the root pointing elsewhere.
        raise StoragePathInvalid("`path` leads outside the storage root", field="path")
    if not base.exists():
        raise StoragePathNotFound(f"storage path `{relative}` does not exist", path=str(relative))
    if not base.is_dir():
        raise StoragePathInvalid(f"storage path `{relative}` is not a directory", field="path")
    files: list[dict[str, Any]] = []
    truncated = False
    for entry in walk_files(base):
        if len(files) >= limit:
            truncated = True
            break
        files.append(
            {
                "path": entry.path.relative_to(root).as_posix(),
                "relative_to_base": entry.relative,
                "size_bytes": entry.size,
                "modified_at_ms": entry.mtime_ns // 1_000_000,
            }
        )
    return {
        "root": str(root),
        "base": str(base),
        "count": len(files),
        "limit": limit,
        "truncated": truncated,
        "files": files,
    }


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "StoragePathInvalid",
    "StoragePathNotFound",
    "list_storage_files",
    "safe_relative",
]
