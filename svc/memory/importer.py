"""Import a directory of notes into memory: discovery, change detection, chunking, sync.

Formats:

* ``directory``: every ``.md``, ``.markdown``, ``.mdx`` and ``.txt`` file of at
  most 2 MiB under the root, skipping hidden and git-ignored entries and the
  usual build and dependency directories (``node_modules``, ``dist`` ...);
* ``openclaw``: the root's ``MEMORY.md`` plus every such file under ``memory/``
  (no size cap).

Each file is remembered under ``import-<h>/<relative path>``, where ``<h>`` is
the first 16 hex digits of the SHA-256 of the root, format, tier, session and
project, so the same folder imported into two places is two sources. A file
whose size and modification time are unchanged is skipped without being read;
one whose content hash is unchanged is skipped after reading; a changed file's
old chunks are replaced in the same transaction as the new ones are written.
With ``sync_deletes`` the records of files that disappeared are removed.

Work goes in batches: files are read, hashed and chunked on a worker thread,
then each batch is one write transaction, so a large import neither blocks the
event loop nor holds the database for long (a running engine next to a CLI
import keeps working).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import attrs
import trio

from ..errors import SvcError, ValidationFailed
from ..store import Tx
from .records import TIERS, MemoryRecord, Tier
from .store import (
    MemoryStore,
    audit_sync,
    content_hash,
    delete_by_source_sync,
    insert_sync,
    new_audit,
)

# The directory walk and the chunker are imported on first use: start-up builds
# the importer but imports nothing (docs/architecture.md, "Start-up budget").
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
            "errors": [dict(e) for e in self.errors],
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
    return root, request.format, request.tier  # type: ignore[return-value]


def import_key(
    root: Path, fmt: str, tier: str, session_id: str | None, project_id: str | None
) -> str:
    digest = hashlib.sha256(
        f"{root}\n{fmt}\n{tier}\n{session_id or ''}\n{project_id or ''}".encode()
    ).hexdigest()
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


@attrs.frozen
class _Known:
    size: int
    mtime_ns: int
    content_hash: str


@attrs.frozen
class _Prepared:
    """One file after the worker thread looked at it."""

    entry: WalkEntry
    source_key: str
    status: Literal["indexed", "unchanged", "touched", "failed"]
    content_hash: str = ""
    records: tuple[MemoryRecord, ...] = ()
    error: str | None = None


@attrs.frozen
class _Context:
    root: Path
    fmt: str
    tier: Tier
    key: str
    request: ImportRequest


class Importer:
    """Runs imports against one :class:`MemoryStore` (the engine's, or the CLI's own)."""

    def __init__(self, store: MemoryStore, now_ms: Callable[[], int]) -> None:
        self.store = store
        self.now_ms = now_ms

    async def run(
        self,
        request: ImportRequest,
        *,
        progress: Callable[[ImportProgress], None] | None = None,
    ) -> ImportSummary:
        root, fmt, tier = validate(request)
        key = import_key(root, fmt, tier, request.session_id, request.project_id)
        entries = await trio.to_thread.run_sync(discover, root, fmt)
        summary = ImportSummary(
            path=str(root),
            format=fmt,
            tier=tier,
            project_id=request.project_id,
            session_id=request.session_id,
            source_binding_id=request.source_binding_id,
            sync_deletes=request.sync_deletes,
            discovered_files=len(entries),
        )
        if not entries and not request.sync_deletes:
            raise MemoryImportFailed(
                f"no importable files found for format={fmt} under {root}", path=str(root)
            )
        known = await self.store.db.read(_known_files, key)
        context = _Context(root=root, fmt=fmt, tier=tier, key=key, request=request)
        counts = {"indexed": 0, "skipped": 0, "chunks": 0}
        errors: list[dict[str, str]] = []
        done = 0
        for start in range(0, len(entries), BATCH_FILES):
            batch = entries[start : start + BATCH_FILES]
            prepared = await trio.to_thread.run_sync(_prepare, batch, context, known, self.now_ms())
            await self.store.db.write(_commit, prepared, context, self.now_ms())
            for item in prepared:
                if item.status == "indexed":
                    counts["indexed"] += 1
                    counts["chunks"] += len(item.records)
                elif item.status == "failed":
                    errors.append({"path": item.entry.relative, "error": item.error or "failed"})
                else:
                    counts["skipped"] += 1
            done += len(batch)
            if progress is not None:
                progress(ImportProgress(done, len(entries), batch[-1].relative))
        deleted = 0
        if request.sync_deletes:
            present = {f"{key}/{e.relative}" for e in entries}
            vanished = sorted(set(known) - present)
            if vanished:
                deleted = await self.store.db.write(_forget, vanished)
        summary = attrs.evolve(
            summary,
            files_processed=counts["indexed"] + counts["skipped"],
            indexed_files=counts["indexed"],
            skipped_files=counts["skipped"],
            deleted_files=deleted,
            chunks_created=counts["chunks"],
            errors=tuple(errors),
        )
        await self.store.db.write(
            audit_sync,
            new_audit(
                "import",
                now_ms=self.now_ms(),
                actor="import",
                detail={k: v for k, v in summary.to_wire().items() if k not in ("ok", "errors")}
                | {"import_key": key, "error_count": len(errors)},
            ),
        )
        return summary


def _known_files(tx: Tx, key: str) -> dict[str, _Known]:
    rows = tx.execute(
        "SELECT source_key, size_bytes, mtime_ns, content_hash FROM memory_import_files WHERE import_key = ?",
        (key,),
    )
    return {r[0]: _Known(r[1], r[2], r[3]) for r in rows}


def _prepare(
    batch: Sequence[WalkEntry], ctx: _Context, known: dict[str, _Known], now_ms: int
) -> list[_Prepared]:
    """Worker thread: read, hash and chunk the files that may have changed."""
    out: list[_Prepared] = []
    for entry in batch:
        source_key = f"{ctx.key}/{entry.relative}"
        seen = known.get(source_key)
        if seen is not None and seen.size == entry.size and seen.mtime_ns == entry.mtime_ns:
            out.append(_Prepared(entry, source_key, "unchanged", seen.content_hash))
            continue
        try:
            raw = entry.path.read_bytes()
        except OSError as exc:
            out.append(_Prepared(entry, source_key, "failed", error=exc.strerror or str(exc)))
            continue
        # Notes are text; a stray invalid byte should not lose the whole file.
        text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
        digest = content_hash(text)
        if seen is not None and seen.content_hash == digest:
            out.append(_Prepared(entry, source_key, "touched", digest))
            continue
        out.append(
            _Prepared(
                entry, source_key, "indexed", digest, _records(entry, source_key, text, ctx, now_ms)
            )
        )
    return out


def _records(
    entry: WalkEntry, source_key: str, text: str, ctx: _Context, now_ms: int
) -> tuple[MemoryRecord, ...]:
    from .chunking import chunk_text

    chunks = chunk_text(text)
    request = ctx.request
    records = []
    for chunk in chunks:
        metadata: dict[str, Any] = {
            "path": entry.relative,
            "root": str(ctx.root),
            "format": ctx.fmt,
            "import_key": ctx.key,
            "chunk_count": len(chunks),
            "start": chunk.start,
            "end": chunk.end,
            "tokens": chunk.tokens,
        }
        if chunk.heading:
            metadata["heading"] = chunk.heading
        if request.source_binding_id:
            metadata["source_binding_id"] = request.source_binding_id
        records.append(
            MemoryRecord(
                id=str(uuid.uuid4()),
                tier=ctx.tier,
                content=chunk.text,
                content_hash=content_hash(chunk.text),
                created_at_ms=now_ms,
                updated_at_ms=now_ms,
                project_id=request.project_id if ctx.tier in ("project", "session") else None,
                session_id=request.session_id if ctx.tier == "session" else None,
                kind="file",
                source_type="file",
                metadata=metadata,
                provenance={"source": "import", "path": str(entry.path)},
                source_key=source_key,
                chunk_index=chunk.index,
            )
        )
    return tuple(records)


def _commit(tx: Tx, prepared: Sequence[_Prepared], ctx: _Context, now_ms: int) -> None:
    """One transaction per batch: replace changed files' chunks, remember every file's state."""
    for item in prepared:
        if item.status == "failed" or item.status == "unchanged":
            continue
        if item.status == "indexed":
            delete_by_source_sync(tx, [item.source_key])
            insert_sync(tx, item.records)
        tx.execute(
            "INSERT INTO memory_import_files(source_key, import_key, relative_path, size_bytes, mtime_ns, "
            "content_hash, chunk_count, imported_at_ms) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(source_key) DO UPDATE "
            "SET size_bytes = excluded.size_bytes, mtime_ns = excluded.mtime_ns, "
            "content_hash = excluded.content_hash, "
            "chunk_count = CASE WHEN ? THEN excluded.chunk_count ELSE chunk_count END, "
            "imported_at_ms = CASE WHEN ? THEN excluded.imported_at_ms ELSE imported_at_ms END",
            (
                item.source_key,
                ctx.key,
                item.entry.relative,
                item.entry.size,
                item.entry.mtime_ns,
                item.content_hash,
                len(item.records),
                now_ms,
                item.status == "indexed",
                item.status == "indexed",
            ),
        )


def _forget(tx: Tx, source_keys: Sequence[str]) -> int:
    delete_by_source_sync(tx, source_keys)
    tx.executemany(
        "DELETE FROM memory_import_files WHERE source_key = ?", [(k,) for k in source_keys]
    )
    return len(source_keys)


__all__ = [
    "EXCLUDED_DIRS",
    "EXTENSIONS",
    "FORMATS",
    "MAX_FILE_BYTES",
    "ImportFormat",
    "ImportProgress",
    "ImportRequest",
    "ImportSummary",
    "Importer",
    "MemoryImportFailed",
    "discover",
    "import_key",
    "validate",
]
