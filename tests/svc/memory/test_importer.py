"""Importing directories of notes: discovery, change detection, chunking, sync deletes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from svc.errors import ValidationFailed
from svc.memory import (
    Importer,
    ImportProgress,
    ImportRequest,
    MemoryImportFailed,
    MemoryScope,
    MemoryStore,
    discover,
    import_key,
)
from svc.memory.import_plan import MAX_FILE_BYTES

ALL = MemoryScope.everything()


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root, "runbook.md", "# Deploy\n\nRotate the deploy key monthly.")
    write(root, "team/people.markdown", "Alice owns billing.")
    write(root, "ideas.txt", "Try zeppelin caching.")
    write(root, "page.mdx", "<Hello /> from mdx")
    write(root, "script.py", "print('not a note')")
    write(root, "node_modules/pkg/README.md", "vendored")
    write(root, "build/out.md", "generated")
    write(root, ".hidden/secret.md", "hidden")
    write(root, ".gitignore", "scratch/\n")
    write(root, "scratch/tmp.md", "ignored")
    (root / "huge.md").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    return root


def importer(store: MemoryStore, now: list[int] | None = None) -> Importer:
    clock = now if now is not None else [1_000]
    return Importer(store, lambda: clock[0])


def test_directory_format_finds_note_files_only(notes: Path) -> None:
    assert [e.relative for e in discover(notes, "directory")] == [
        "ideas.txt",
        "page.mdx",
        "runbook.md",
        "team/people.markdown",
    ]


def test_openclaw_format_takes_memory_md_and_the_memory_folder(tmp_path: Path) -> None:
    write(tmp_path, "MEMORY.md", "top")
    write(tmp_path, "memory/2024/jan.md", "jan")
    write(tmp_path, "memory/big.txt", "x" * (MAX_FILE_BYTES + 10))  # no size cap here
    write(tmp_path, "other.md", "not part of it")
    write(tmp_path, "memory/code.py", "no")
    assert [e.relative for e in discover(tmp_path, "openclaw")] == [
        "MEMORY.md",
        "memory/2024/jan.md",
        "memory/big.txt",
    ]


async def test_import_indexes_chunks_that_search_finds(store: MemoryStore, notes: Path) -> None:
    summary = await importer(store).run(ImportRequest(notes, tier="project", project_id="p1"))
    assert (summary.discovered_files, summary.indexed_files, summary.skipped_files) == (4, 4, 0)
    assert summary.files_processed == 4 and summary.chunks_created == 4 and summary.errors == ()
    hit = (await store.records.search("deploy key", ALL))[0].record
    assert (
        hit.tier == "project"
        and hit.project_id == "p1"
        and hit.kind == "file"
        and hit.source_type == "file"
    )
    assert hit.metadata["path"] == "runbook.md" and hit.metadata["heading"] == "Deploy"
    assert (
        hit.source_key
        == f"{import_key(notes.resolve(), 'directory', 'project', None, 'p1')}/runbook.md"
    )
    assert summary.to_wire()["ok"] is True


async def test_unchanged_files_are_skipped_and_changed_ones_replaced(
    store: MemoryStore, notes: Path
) -> None:
    run = importer(store)
    await run.run(ImportRequest(notes))
    again = await run.run(ImportRequest(notes))
    assert (again.indexed_files, again.skipped_files, again.chunks_created) == (0, 4, 0)

    # Same content, new mtime: read and hashed, still skipped.
    runbook = notes / "runbook.md"
    os.utime(runbook, ns=(runbook.stat().st_atime_ns, runbook.stat().st_mtime_ns + 5_000_000_000))
    touched = await run.run(ImportRequest(notes))
    assert (touched.indexed_files, touched.skipped_files) == (0, 4)

    runbook.write_text("# Deploy\n\nRotate the deploy key weekly now.")
    os.utime(runbook, ns=(runbook.stat().st_atime_ns, runbook.stat().st_mtime_ns + 10_000_000_000))
    changed = await run.run(ImportRequest(notes))
    assert (changed.indexed_files, changed.skipped_files, changed.chunks_created) == (1, 3, 1)
    contents = [
        h.record.content for h in await store.records.search("rotate deploy", ALL, limit=10)
    ]
    assert contents == ["# Deploy\n\nRotate the deploy key weekly now."]
    assert await store.records.count() == 4


async def test_sync_deletes_removes_records_of_vanished_files(
    store: MemoryStore, notes: Path
) -> None:
    run = importer(store)
    await run.run(ImportRequest(notes))
    (notes / "ideas.txt").unlink()
    kept = await run.run(ImportRequest(notes))
    assert kept.deleted_files == 0 and await store.records.count() == 4
    synced = await run.run(ImportRequest(notes, sync_deletes=True))
    assert synced.deleted_files == 1 and await store.records.count() == 3
    assert await store.records.search("zeppelin", ALL) == []


async def test_sync_deletes_of_an_emptied_folder_clears_it(
    store: MemoryStore, tmp_path: Path
) -> None:
    write(tmp_path, "a.md", "alpha")
    run = importer(store)
    await run.run(ImportRequest(tmp_path))
    (tmp_path / "a.md").unlink()
    with pytest.raises(MemoryImportFailed, match="no importable files found for format=directory"):
        await run.run(ImportRequest(tmp_path))
    cleared = await run.run(ImportRequest(tmp_path, sync_deletes=True))
    assert (cleared.discovered_files, cleared.deleted_files) == (0, 1)
    assert await store.records.count() == 0


async def test_the_same_folder_in_two_tiers_is_two_sources(store: MemoryStore, notes: Path) -> None:
    run = importer(store)
    await run.run(ImportRequest(notes, tier="session", session_id="s1"))
    second = await run.run(ImportRequest(notes, tier="session", session_id="s2"))
    assert second.indexed_files == 4 and await store.records.count() == 8
    hits = await store.records.search(
        "zeppelin", MemoryScope.for_context(session_id="s2", project_id=None)
    )
    assert [h.record.session_id for h in hits] == ["s2"]


async def test_large_files_are_chunked(store: MemoryStore, tmp_path: Path) -> None:
    write(
        tmp_path,
        "long.md",
        "\n\n".join(" ".join(f"word{p}x{i}" for i in range(100)) for p in range(20)),
    )
    summary = await importer(store).run(ImportRequest(tmp_path))
    assert summary.chunks_created == 5
    items, _ = await store.records.page(ALL)
    assert sorted(r.chunk_index for r in items) == [0, 1, 2, 3, 4]
    assert {r.metadata["chunk_count"] for r in items} == {5}


async def test_progress_is_reported_per_batch_up_to_the_total(
    store: MemoryStore, tmp_path: Path
) -> None:
    for i in range(130):
        write(tmp_path, f"n{i:03}.md", f"note {i}")
    seen: list[ImportProgress] = []
    await importer(store).run(ImportRequest(tmp_path), progress=seen.append)
    assert [(p.done, p.total) for p in seen] == [(64, 130), (128, 130), (130, 130)]
    assert seen[-1].path == "n129.md"


async def test_invalid_utf8_is_imported_with_replacement(
    store: MemoryStore, tmp_path: Path
) -> None:
    (tmp_path / "latin.txt").write_bytes("caf\xe9 menu".encode("latin-1"))
    summary = await importer(store).run(ImportRequest(tmp_path))
    assert summary.indexed_files == 1
    assert (await store.records.search("menu", ALL))[0].record.content == "caf\ufffd menu"


async def test_unreadable_files_are_reported_not_fatal(store: MemoryStore, tmp_path: Path) -> None:
    write(tmp_path, "ok.md", "fine")
    locked = write(tmp_path, "locked.md", "private")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as a user who can read anything")
        summary = await importer(store).run(ImportRequest(tmp_path))
    finally:
        locked.chmod(0o644)
    assert summary.indexed_files == 1
    assert summary.errors == ({"path": "locked.md", "error": "Permission denied"},)


@pytest.mark.parametrize(
    ("request_kwargs", "field", "message"),
    [
        ({"format": "zip"}, "format", "unsupported memory import format `zip`"),
        ({"tier": "team"}, "tier", "unsupported memory tier `team`"),
        ({"tier": "project"}, "project_id", "tier=project requires project_id"),
        ({"tier": "session"}, "session_id", "tier=session requires session_id"),
    ],
)
async def test_bad_requests_name_the_field(
    store: MemoryStore, notes: Path, request_kwargs: dict, field: str, message: str
) -> None:
    with pytest.raises(ValidationFailed) as caught:
        await importer(store).run(ImportRequest(notes, **request_kwargs))
    assert caught.value.extra["field"] == field and caught.value.message == message


async def test_a_missing_directory_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    with pytest.raises(ValidationFailed, match="is not a directory"):
        await importer(store).run(ImportRequest(tmp_path / "nope"))
