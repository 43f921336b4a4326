"""Output targets (``file://<relative_path>``): parsing and workspace confinement.

A target names a file the run is expected to produce, relative to the
workspace. Anything that could lead outside the workspace is refused: absolute
paths, ``..`` segments that climb out, and symlinks resolving outside.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import ValidationFailed
from ..tools import normalize_patterns

SCHEME = "file://"


def parse_output_targets(value: Any, *, workspace: Path, field: str, code: str) -> tuple[str, ...]:
    """Trimmed, de-duplicated targets, each checked against ``workspace``."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValidationFailed(
            f"`{field}` must be an array of `file://<relative_path>` strings",
            field=field,
            code=code,
        )
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ValidationFailed(
                f"`{field}[{index}]` must be a string", field=f"{field}[{index}]", code=code
            )
    targets = normalize_patterns(value)
    for target in targets:
        index = next(
            i for i, item in enumerate(value) if isinstance(item, str) and item.strip() == target
        )
        resolve_target(target, workspace, field=f"{field}[{index}]", code=code)
    return tuple(targets)


def relative_path(target: str, *, field: str, code: str) -> PurePosixPath:
    if not target.startswith(SCHEME):
        raise ValidationFailed(
            f"`{field}` must be of the form `file://<relative_path>`, not `{target}`",
            field=field,
            code=code,
        )
    raw = target[len(SCHEME) :]
    path = PurePosixPath(raw)
    if not raw or path.is_absolute() or raw.startswith("~") or "\\" in raw or ":" in path.parts[0]:
        raise ValidationFailed(
            f"`{field}` must be a path relative to the workspace, not `{raw}`",
            field=field,
            code=code,
        )
    depth = 0
    for part in path.parts:
        depth = depth - 1 if part == ".." else depth + (part != ".")
        if depth < 0:
            raise ValidationFailed(f"`{field}` leads outside the workspace", field=field, code=code)
    if depth == 0:
        raise ValidationFailed(
            f"`{field}` must name a file inside the workspace", field=field, code=code
        )
    return path


def resolve_target(
    target: str, workspace: Path, *, field: str = "output_targets", code: str = "VALIDATION_FAILED"
) -> Path:
    """The absolute path ``target`` names; refused if it (or a symlink on the way) leaves
    ``workspace``."""
    relative = relative_path(target, field=field, code=code)
    root = workspace.resolve()
    resolved = (root / Path(*relative.parts)).resolve()
    if resolved != root and root not in resolved.parents:
        raise ValidationFailed(
            f"`{field}` leads outside the workspace (through a symlink)", field=field, code=code
        )
    return resolved


def confined(targets: Iterable[str], workspace: Path) -> list[tuple[str, Path | None, str | None]]:
    """Each target with its resolved path, or None and the reason it is refused now."""
    out: list[tuple[str, Path | None, str | None]] = []
    for target in targets:
        try:
            out.append((target, resolve_target(target, workspace), None))
        except ValidationFailed as exc:
            out.append((target, None, exc.message))
    return out


__all__ = ["SCHEME", "confined", "parse_output_targets", "relative_path", "resolve_target"]
