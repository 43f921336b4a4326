"""The ``local_directory`` provider: which folders a binding may read.

A binding's ``native_source_id`` is an absolute path. It is resolved (symlinks
followed, ``..`` collapsed) and must then lie inside one of the operator's
``enterprise.local_directory.allowed_roots``, themselves resolved the same way,
so a symlink inside an allowed root that points outside it is refused too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .errors import EnterpriseInvalid

if TYPE_CHECKING:
    from ..settings import Settings

NOT_ALLOWED = "ENTERPRISE_LOCAL_DIRECTORY_ROOT_NOT_ALLOWED"


def allowed_roots(settings: Settings) -> list[Path]:
    return [Path(root).resolve() for root in settings.enterprise.local_directory.allowed_roots]


def inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def resolve_root(native_source_id: str, settings: Settings) -> Path:
    """The binding's folder, resolved, when the operator allows it; else a 400."""
    raw = Path(native_source_id).expanduser()
    if not raw.is_absolute():
        raise EnterpriseInvalid(
            "a local_directory binding names an absolute path in `native_source_id`",
            code=NOT_ALLOWED,
            field="native_source_id",
        )
    roots = allowed_roots(settings)
    resolved = raw.resolve()
    if not roots or not inside(resolved, roots):
        raise EnterpriseInvalid(
            f"`{native_source_id}` is outside the allowed roots; list its folder in "
            "enterprise.local_directory.allowed_roots",
            code=NOT_ALLOWED,
            field="native_source_id",
        )
    if not resolved.is_dir():
        raise EnterpriseInvalid(
            f"`{native_source_id}` is not a directory",
            code="ENTERPRISE_LOCAL_DIRECTORY_NOT_FOUND",
            field="native_source_id",
        )
    return resolved


__all__ = ["NOT_ALLOWED", "allowed_roots", "inside", "resolve_root"]
