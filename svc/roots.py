"""Workspace roots: where a shared deployment lets sessions and imports point.

With ``workspace_roots`` set (``SVC_WORKSPACE_ROOTS``, for a panel serving several
people), a session directory or a memory import path must lie inside one of the
roots once symlinks are resolved; unset, any directory the engine can read is
allowed, as for a local single-user engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .errors import ValidationFailed


class PathOutsideRoots(ValidationFailed):
    """The path lies outside the configured workspace roots."""

    code = "PATH_OUTSIDE_WORKSPACE_ROOTS"
    status = 403


def check_within_roots(path: Path, roots: Sequence[Path], *, field: str) -> Path:
    """``path`` resolved (symlinks followed); raises :class:`PathOutsideRoots` when roots
    are configured and it lies inside none of them."""
    resolved = path.expanduser().resolve()
    if not roots:
        return resolved
    for root in roots:
        base = root.expanduser().resolve()
        if resolved == base or base in resolved.parents:
            return resolved
    raise PathOutsideRoots(
        f"`{field}`: {resolved} is outside the workspace roots this engine allows",
        field=field,
    )


__all__ = ["PathOutsideRoots", "check_within_roots"]
