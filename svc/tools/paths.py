"""Workspace confinement for file tools.

A file tool may touch only what lies inside the workspace. A path is checked
twice: once as written (so ``../secret`` is refused even when it does not
exist) and once with every symlink resolved (so ``link -> /etc`` is refused,
while a symlink that stays inside the workspace is fine). ``~`` is never
expanded: to a tool it is just a directory name.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ValidationFailed
from .types import ToolDenied, ToolFailed


class PathOutsideWorkspace(ToolDenied):
    """The path is outside the workspace."""

    code = "PATH_OUTSIDE_WORKSPACE"
    status = 403


def resolve_in_workspace(
    workspace: Path,
    path: str,
    *,
    cwd: Path | None = None,
    must_exist: bool = False,
    field: str = "args.path",
) -> Path:
    """The real (symlink-free) location of ``path`` inside ``workspace``.

    Relative paths resolve against ``cwd`` (default: the workspace), which must
    itself lie inside the workspace. Raises :class:`PathOutsideWorkspace` for
    anything that leaves it, :class:`ToolFailed` for a missing path when
    ``must_exist``, and :class:`ValidationFailed` (on ``field``) for an empty path.
    """
    if not isinstance(path, str) or not path.strip():
        raise ValidationFailed(f"{field} must be a non-empty path", field=field)
    if "\0" in path:
        raise ValidationFailed(f"{field} must not contain NUL characters", field=field)
    lexical_root, real_root = _roots(workspace)
    base = resolve_cwd(workspace, cwd)
    candidate = Path(path) if os.path.isabs(path) else base / path
    lexical = Path(os.path.normpath(candidate))
    if not (_inside(lexical, lexical_root) or _inside(lexical, real_root)):
        raise PathOutsideWorkspace(f"`{path}` is outside the workspace {real_root}", path=path)
    real = _resolve(candidate, path)
    if not _inside(real, real_root):
        raise PathOutsideWorkspace(
            f"`{path}` leads outside the workspace {real_root} through a symlink", path=path
        )
    if must_exist and not real.exists():
        raise ToolFailed(f"no such file or directory: {path}", path=path)
    return real


def resolve_cwd(workspace: Path, cwd: Path | None) -> Path:
    """The real working directory for a tool call; it must lie inside the workspace."""
    _, real_root = _roots(workspace)
    if cwd is None:
        return real_root
    candidate = cwd if cwd.is_absolute() else real_root / cwd
    real = _resolve(candidate, str(cwd))
    if not _inside(real, real_root):
        raise PathOutsideWorkspace(
            f"working directory {cwd} is outside the workspace {real_root}", path=str(cwd)
        )
    return real


def is_inside_workspace(workspace: Path, path: Path) -> bool:
    """Whether ``path``, symlinks resolved, stays inside the workspace."""
    _, real_root = _roots(workspace)
    try:
        return _inside(path.resolve(strict=False), real_root)
    except (OSError, RuntimeError):
        return False


def workspace_relative(workspace: Path, path: Path) -> str:
    """``path`` as shown to the model: relative to the workspace (``.`` for the root)."""
    _, real_root = _roots(workspace)
    for root in (real_root, Path(os.path.abspath(workspace))):
        if _inside(path, root):
            rel = path.relative_to(root).as_posix()
            return rel or "."
    return str(path)


def _roots(workspace: Path) -> tuple[Path, Path]:
    # Both spellings count: a workspace reached through a symlink (/tmp on macOS)
    # is the same workspace as its real path.
    return Path(os.path.abspath(workspace)), _resolve(workspace, str(workspace))


def _resolve(path: Path, shown: str) -> Path:
    try:
        return path.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on 3.11
        raise ToolFailed(f"cannot resolve `{shown}`: {exc}", path=shown) from None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


__all__ = [
    "PathOutsideWorkspace",
    "is_inside_workspace",
    "resolve_cwd",
    "resolve_in_workspace",
    "workspace_relative",
]
