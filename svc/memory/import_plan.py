"""What a memory import covers: the request, its checks, the files it finds, its summary.

Formats:

* ``directory``: every ``.md``, ``.markdown``, ``.mdx`` and ``.txt`` file of at
  most 2 MiB under the root, skipping hidden and git-ignored entries and the
  usual build and dependency directories (``node_modules``, ``dist`` ...);
* ``openclaw``: the root's ``MEMORY.md`` plus every such file under ``memory/``
  (no size cap).

Each file is remembered under ``import-<h>/<relative path>``, where ``<h>`` is
the first 16 hex digits of the SHA-256 of the root, format, tier, session and
project, so the same folder imported into two places is two sources.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import attrs

from ..errors import SvcError, ValidationFailed
from .tiers import TIERS, Tier

# The directory walk is imported on first use (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from ..files import WalkEntry

ImportFormat = Literal["directory", "openclaw"]
FORMATS: tuple[ImportFormat, ...] = get_args(ImportFormat)

EXTENSIONS = frozenset({".md", ".markdown", ".mdx", ".txt"})
MAX_FILE_BYTES = 2 * 1024 * 1024
EXCLUDED_DIRS = frozenset(
    {".git", "node_modules", "dist", "build", "target", ".next", ".turbo", ".cache"}
)

BATCH_FILES = 64
"""Files per write transaction."""


class MemoryImportFailed(SvcError):
    """The memory import failed."""

    code = "MEMORY_IMPORT_FAILED"
    status = 400


@attrs.frozen
class ImportRequest:
    path: Path
    format: str = "directory"
    tier: str = "global"
    project_id: str | None = None
    session_id: str | None = None
    sync_deletes: bool = False
    source_binding_id: str | None = None
    classification: str = "internal"
    """The data class every imported record carries (an enterprise binding's)."""
    org_id: str = "local"
    workspace_id: str = "local"
    skip: frozenset[str] = frozenset()
    """Relative paths left out as if absent (files an enterprise binding holds in
    quarantine); with ``sync_deletes`` their earlier records are removed."""


@attrs.frozen
class ImportProgress:
    done: int
    """Files handled so far (indexed, skipped or failed)."""
    total: int
    path: str | None = None
    """The last file handled."""


@attrs.frozen
class ImportSummary:
    path: str
    format: str
    tier: str
    project_id: str | None
    session_id: str | None
    source_binding_id: str | None
    sync_deletes: bool
    discovered_files: int = 0
    files_processed: int = 0
    """Files indexed or skipped as unchanged."""
    indexed_files: int = 0
    skipped_files: int = 0
    deleted_files: int = 0
    chunks_created: int = 0
    errors: tuple[dict[str, str], ...] = ()
    """``{path, error}`` for every file that could not be imported."""

    def to_wire(self) -> dict[str, Any]:
        return {
            "ok": True,
            "source": {"kind": "path", "path": self.path},
            "path": self.path,
            "format": self.format,
            "tier": self.tier,
            "project_id": self.project_id,
            "session_id": self.session_id,
            "source_binding_id": self.source_binding_id,
            "sync_deletes": self.sync_deletes,
            "discovered_files": self.discovered_files,
            "files_processed": self.files_processed,
            "indexed_files": self.indexed_files,
            "skipped_files": self.skipped_files,
            "deleted_files": self.deleted_files,
            "chunks_created": self.chunks_created,
            # A count, as the reference and its clients have it; which files failed and
            # why is under `error_details`.
            "errors": len(self.errors),
            "error_details": [dict(e) for e in self.errors],
        }


def validate(request: ImportRequest) -> tuple[Path, ImportFormat, Tier]:
    """Check an import request before any work: format, tier, the ids the tier needs, the path."""
    if request.format not in FORMATS:
        raise ValidationFailed(
            f"unsupported memory import format `{request.format}`", field="format"
        )
    if request.tier not in TIERS:
        raise ValidationFailed(f"unsupported memory tier `{request.tier}`", field="tier")
    if request.tier == "project" and not request.project_id:
        raise ValidationFailed("tier=project requires project_id", field="project_id")
    if request.tier == "session" and not request.session_id:
        raise ValidationFailed("tier=session requires session_id", field="session_id")
    root = request.path.expanduser()
    if not root.is_absolute():
        root = Path.cwd() / root
    root = root.resolve()
    if not root.is_dir():
        raise ValidationFailed(f"import path {root} is not a directory", field="path")
    return root, request.format, request.tier


def import_key(
    root: Path,
    fmt: str,
    tier: str,
    session_id: str | None,
    project_id: str | None,
    *,
    org_id: str = "local",
    workspace_id: str = "local",
) -> str:
    """The idempotency key of an import: which folder, how, where, and for which tenant.

    Two tenants importing the same folder must not share files (the second would
    find the first's files "unchanged" and its records would carry the first's
    tenant). The default tenant keeps the key it always had, so folders imported
    before tenants existed are still recognised.
    """
    text = f"{root}\n{fmt}\n{tier}\n{session_id or ''}\n{project_id or ''}"
    if (org_id, workspace_id) != ("local", "local"):
        text += f"\n{org_id}\n{workspace_id}"
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"import-{digest[:16]}"


def _importable(relative: str, size: int, *, cap: bool) -> bool:
    suffix = Path(relative).suffix.lower()
    return suffix in EXTENSIONS and (not cap or size <= MAX_FILE_BYTES)


def discover(root: Path, fmt: ImportFormat) -> list[WalkEntry]:
    """The files an import of ``root`` in ``fmt`` covers, sorted by relative path."""
    from ..files import WalkEntry, walk_files

    found: dict[str, WalkEntry] = {}
    if fmt == "directory":
        for entry in walk_files(
            root,
            exclude_dirs=EXCLUDED_DIRS,
            keep=lambda rel, size: _importable(rel, size, cap=True),
        ):
            found.setdefault(entry.relative, entry)
    else:
        memory_md = root / "MEMORY.md"
        if memory_md.is_file():
            stat = memory_md.stat()
            found["MEMORY.md"] = WalkEntry(memory_md, "MEMORY.md", stat.st_size, stat.st_mtime_ns)
        notes = root / "memory"
        if notes.is_dir():
            for entry in walk_files(
                notes, keep=lambda rel, size: _importable(rel, size, cap=False)
            ):
                rel = f"memory/{entry.relative}"
                found.setdefault(rel, attrs.evolve(entry, relative=rel))
    return [found[k] for k in sorted(found)]


__all__ = [
    "BATCH_FILES",
    "EXCLUDED_DIRS",
    "EXTENSIONS",
    "FORMATS",
    "MAX_FILE_BYTES",
    "ImportFormat",
    "ImportProgress",
    "ImportRequest",
    "ImportSummary",
    "MemoryImportFailed",
    "discover",
    "import_key",
    "validate",
]
