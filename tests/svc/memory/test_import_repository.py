"""Imported files: a batch replaces a changed file's chunks; a touched file keeps its count."""

from __future__ import annotations

from svc.memory import MemoryScope, MemoryStore, NewRecord
from svc.memory.factory import build_record
from svc.memory.import_repository import FileUpdate, KnownFile

ALL = MemoryScope.everything()


def chunks(source_key: str, *texts: str) -> tuple:
    return tuple(
        build_record(
            NewRecord(content=text, tier="global", source_key=source_key, chunk_index=i), now_ms=1
        )
        for i, text in enumerate(texts)
    )


async def test_a_changed_file_replaces_its_chunks_and_a_touched_one_keeps_them(
    store: MemoryStore,
) -> None:
    imports = store.imports
    key = "import-1/notes.md"
    await imports.apply(
        "import-1",
        [FileUpdate(key, "notes.md", 10, 100, "h1", chunks(key, "alpha one", "alpha two"))],
        now_ms=1,
    )
    assert await imports.known_files("import-1") == {key: KnownFile(10, 100, "h1")}
    assert await store.records.count() == 2
    # Only the size and time changed: the chunks stay, and so does their count.
    await imports.apply("import-1", [FileUpdate(key, "notes.md", 11, 200, "h1", None)], now_ms=2)
    assert await imports.known_files("import-1") == {key: KnownFile(11, 200, "h1")}
    count = await store.db.read(
        lambda tx: tx.execute(
            "SELECT chunk_count, imported_at_ms FROM memory_import_files"
        ).fetchone()
    )
    assert tuple(count) == (2, 1)
    await imports.apply(
        "import-1", [FileUpdate(key, "notes.md", 12, 300, "h2", chunks(key, "beta"))], now_ms=3
    )
    assert [h.record.content for h in await store.records.search("alpha beta", ALL)] == ["beta"]
    assert await imports.forget([key]) == 1
    assert await imports.known_files("import-1") == {}
    assert await store.records.count() == 0
