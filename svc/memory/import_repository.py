"""Imported files: what each import saw of each file, and the records it made of them.

One row per file (``memory_import_files``) lets a re-import skip unchanged
files; a changed file's old chunks are replaced in the same transaction as the
file's row, so a record never outlives or predates the file state it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from ..store import Store, Tx
from .record_repository import RecordRepository

if TYPE_CHECKING:
    from .records import MemoryRecord

_UPSERT = (
    "INSERT INTO memory_import_files(source_key, import_key, relative_path, size_bytes, "
    "mtime_ns, content_hash, chunk_count, imported_at_ms) VALUES (?,?,?,?,?,?,?,?) "
    "ON CONFLICT(source_key) DO UPDATE SET size_bytes = excluded.size_bytes, "
    "mtime_ns = excluded.mtime_ns, content_hash = excluded.content_hash, "
    "chunk_count = CASE WHEN ? = 1 THEN excluded.chunk_count "
    "ELSE memory_import_files.chunk_count END, "
    "imported_at_ms = CASE WHEN ? = 1 THEN excluded.imported_at_ms "
    "ELSE memory_import_files.imported_at_ms END"
)


@attrs.frozen
class KnownFile:
    """A file as the last import of it saw it."""

    size: int
    mtime_ns: int
    content_hash: str


@attrs.frozen
class FileUpdate:
    """A file an import batch looked at and found new or changed on disk."""

    source_key: str
    relative_path: str
    size: int
    mtime_ns: int
    content_hash: str
    records: tuple[MemoryRecord, ...] | None
    """Its new chunks, replacing the old ones; None when only the size or time changed."""


def _known(tx: Tx, import_key: str) -> dict[str, KnownFile]:
    rows = tx.execute(
        "SELECT source_key, size_bytes, mtime_ns, content_hash FROM memory_import_files "
        "WHERE import_key = ?",
        (import_key,),
    )
    return {r[0]: KnownFile(r[1], r[2], r[3]) for r in rows}


class ImportRepository:
    """The ``memory_import_files`` table, with the records made of each file."""

    def __init__(self, db: Store, records: RecordRepository) -> None:
        self._db = db
        self._records = records

    async def known_files(self, import_key: str) -> dict[str, KnownFile]:
        """Every file of this import, by source key."""
        return await self._db.read(_known, import_key)

    async def apply(self, import_key: str, updates: Sequence[FileUpdate], *, now_ms: int) -> None:
        """One transaction per batch: replace changed files' chunks, remember every file's state."""

        def q(tx: Tx) -> None:
            for update in updates:
                indexed = update.records is not None
                if update.records is not None:
                    self._records.delete_by_source_in(tx, [update.source_key])
                    self._records.insert_in(tx, update.records)
                tx.execute(
                    _UPSERT,
                    (
                        update.source_key,
                        import_key,
                        update.relative_path,
                        update.size,
                        update.mtime_ns,
                        update.content_hash,
                        len(update.records or ()),
                        now_ms,
                        indexed,
                        indexed,
                    ),
                )

        await self._db.write(q)

    async def forget(self, source_keys: Sequence[str]) -> int:
        """Remove vanished files and their records; returns how many files."""

        def q(tx: Tx) -> int:
            self._records.delete_by_source_in(tx, source_keys)
            tx.executemany(
                "DELETE FROM memory_import_files WHERE source_key = ?",
                [(k,) for k in source_keys],
            )
            return len(source_keys)

        return await self._db.write(q)


__all__ = ["FileUpdate", "ImportRepository", "KnownFile"]
