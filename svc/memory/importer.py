"""Import a directory of notes into memory: change detection, chunking, sync.

What an import covers (formats, the files found, the source keys) is
:mod:`svc.memory.import_plan`. A file whose size and modification time are
unchanged is skipped without being read; one whose content hash is unchanged is
skipped after reading; a changed file's old chunks are replaced in the same
transaction as the new ones are written. With ``sync_deletes`` the records of
files that disappeared are removed.

Work goes in batches: files are read, hashed and chunked on a worker thread,
then each batch is one write transaction, so a large import neither blocks the
event loop nor holds the database for long (a running engine next to a CLI
import keeps working).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs
import trio

from .factory import content_hash, new_audit
from .import_plan import (
    BATCH_FILES,
    ImportProgress,
    ImportRequest,
    ImportSummary,
    MemoryImportFailed,
    discover,
    import_key,
    validate,
)
from .import_repository import FileUpdate, KnownFile
from .records import MemoryRecord, Tier
from .store import MemoryStore

# The directory walk and the chunker are imported on first use.
if TYPE_CHECKING:
    from ..files import WalkEntry


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
        key = import_key(
            root,
            fmt,
            tier,
            request.session_id,
            request.project_id,
            org_id=request.org_id,
            workspace_id=request.workspace_id,
        )
        entries = await trio.to_thread.run_sync(discover, root, fmt)
        if request.skip:
            entries = [e for e in entries if e.relative not in request.skip]
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
        known = await self.store.imports.known_files(key)
        context = _Context(root=root, fmt=fmt, tier=tier, key=key, request=request)
        counts = {"indexed": 0, "skipped": 0, "chunks": 0}
        errors: list[dict[str, str]] = []
        done = 0
        for start in range(0, len(entries), BATCH_FILES):
            batch = entries[start : start + BATCH_FILES]
            prepared = await trio.to_thread.run_sync(_prepare, batch, context, known, self.now_ms())
            updates = _updates(prepared)
            if updates:
                await self.store.imports.apply(key, updates, now_ms=self.now_ms())
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
                deleted = await self.store.imports.forget(vanished)
        summary = attrs.evolve(
            summary,
            files_processed=counts["indexed"] + counts["skipped"],
            indexed_files=counts["indexed"],
            skipped_files=counts["skipped"],
            deleted_files=deleted,
            chunks_created=counts["chunks"],
            errors=tuple(errors),
        )
        await self.store.audit.append(
            new_audit(
                "import",
                now_ms=self.now_ms(),
                actor="import",
                detail={k: v for k, v in summary.to_wire().items() if k not in ("ok", "errors")}
                | {"import_key": key, "error_count": len(errors)},
            ),
        )
        return summary


def _prepare(
    batch: Sequence[WalkEntry], ctx: _Context, known: dict[str, KnownFile], now_ms: int
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
                org_id=request.org_id,
                workspace_id=request.workspace_id,
                kind="file",
                source_type="file",
                classification=request.classification,
                metadata=metadata,
                provenance={"source": "import", "path": str(entry.path)},
                source_key=source_key,
                chunk_index=chunk.index,
            )
        )
    return tuple(records)


def _updates(prepared: Sequence[_Prepared]) -> list[FileUpdate]:
    """What a batch changes: new content for indexed files, size and time for touched ones."""
    return [
        FileUpdate(
            source_key=item.source_key,
            relative_path=item.entry.relative,
            size=item.entry.size,
            mtime_ns=item.entry.mtime_ns,
            content_hash=item.content_hash,
            records=item.records if item.status == "indexed" else None,
        )
        for item in prepared
        if item.status in ("indexed", "touched")
    ]


__all__ = ["Importer"]
