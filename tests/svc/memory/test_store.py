"""The memory store: FTS5 search ranked by bm25, tiers, tags, listings, deletes."""

from __future__ import annotations

from svc.memory import MemoryScope, MemoryStore, ScopeClause
from svc.memory.factory import build_record
from svc.memory.records import NewRecord
from tests.svc.memory.support import put

ALL = MemoryScope.everything()


async def test_search_ranks_by_bm25_and_scores_follow_the_ranking(store: MemoryStore) -> None:
    strong = await put(
        store, "deploy key rotation: rotate the deploy key monthly, deploy key in vault"
    )
    medium = await put(store, "the deploy key lives in the vault")
    weak = await put(store, "we deploy on fridays")
    await put(store, "nothing relevant here at all")
    hits = await store.records.search("deploy key", ALL, limit=10)
    assert [h.record.id for h in hits] == [strong.id, medium.id, weak.id]
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3
    assert all(0 < s < 1 for s in scores)
    assert all(abs(h.score - h.bm25 / (1 + h.bm25)) < 1e-12 for h in hits)


async def test_rarer_terms_weigh_more(store: MemoryStore) -> None:
    for i in range(20):
        await put(store, f"common note number {i}")
    rare = await put(store, "common zeppelin")
    hits = await store.records.search("common zeppelin", ALL, limit=3)
    assert hits[0].record.id == rare.id
    assert hits[0].score > hits[1].score


async def test_stemming_and_prefix_fallback(store: MemoryStore) -> None:
    record = await put(store, "Rotating credentials every month")
    assert [h.record.id for h in await store.records.search("rotation credential", ALL)] == [
        record.id
    ]
    assert [h.record.id for h in await store.records.search("cred", ALL)] == [record.id]
    assert await store.records.search("zzz", ALL) == []
    assert await store.records.search("   ", ALL) == []


async def test_scopes_confine_results_to_their_tiers(store: MemoryStore) -> None:
    g = await put(store, "alpha global")
    p1 = await put(store, "alpha project one", "project", project_id="p1")
    await put(store, "alpha project two", "project", project_id="p2")
    s1 = await put(store, "alpha session one", "session", session_id="s1", project_id="p1")
    await put(store, "alpha session two", "session", session_id="s2", project_id="p1")
    run_only = await put(store, "alpha governed run", "session", run_id="r9")

    def ids(hits: list) -> set[str]:
        return {h.record.id for h in hits}

    mine = MemoryScope.for_context(session_id="s1", project_id="p1")
    assert ids(await store.records.search("alpha", mine, limit=50)) == {g.id, p1.id, s1.id}
    only_project = MemoryScope.for_context(session_id=None, project_id="p1")
    assert ids(await store.records.search("alpha", only_project, limit=50)) == {g.id, p1.id}
    assert len(await store.records.search("alpha", ALL, limit=50)) == 6
    whole_session_tier = MemoryScope((ScopeClause("session"),))
    assert len(await store.records.search("alpha", whole_session_tier, limit=50)) == 3
    by_run = MemoryScope((ScopeClause("session", run_id="r9"),))
    assert ids(await store.records.search("alpha", by_run, limit=50)) == {run_only.id}
    assert await store.records.search("alpha", MemoryScope(()), limit=50) == []
    for record in (g, p1, s1):
        assert mine.allows(record)


async def test_scope_filter_finds_matches_beyond_the_fast_path_candidates(
    store: MemoryStore,
) -> None:
    # 400 strong global matches outrank the one session record the scope allows.
    records = [
        build_record(NewRecord(content="needle needle needle hay", tier="global"), now_ms=1)
        for _ in range(400)
    ]
    await store.records.insert(records)
    mine = await put(store, "a needle in a long haystack of words " * 5, "session", session_id="s1")
    hits = await store.records.search(
        "needle",
        MemoryScope.for_context(session_id="s1", project_id=None, tiers=("session",)),
        limit=5,
    )
    assert [h.record.id for h in hits] == [mine.id]


async def test_tags_filter_and_are_searchable(store: MemoryStore) -> None:
    tagged = await put(store, "release checklist", tags=("Ops", "release", "ops"))
    await put(store, "release notes draft", tags=("docs",))
    assert tagged.tags == ("ops", "release")
    assert [h.record.id for h in await store.records.search("release", ALL, tags=["OPS"])] == [
        tagged.id
    ]
    assert await store.records.search("release", ALL, tags=["ops", "docs"]) == []
    assert [h.record.id for h in await store.records.search("ops", ALL)] == [tagged.id]


async def test_demoted_records_leave_search_but_stay_listed(store: MemoryStore) -> None:
    record = await put(store, "secret plan")
    updated = await store.records.set_demoted(record.id, demoted=True, now_ms=5)
    assert updated is not None and updated.demoted and updated.visibility == "private"
    assert await store.records.search("plan", ALL) == []
    items, total = await store.records.page(ALL)
    assert total == 1 and items[0].demoted
    assert await store.records.set_demoted("missing", demoted=True, now_ms=5) is None


async def test_list_is_newest_first_with_total_text_and_paging(store: MemoryStore) -> None:
    for i in range(5):
        await put(store, f"note {i} {'apple' if i % 2 else 'pear'}", now_ms=100 + i)
    items, total = await store.records.page(ALL, limit=2, offset=1)
    assert total == 5 and [r.content for r in items] == ["note 3 apple", "note 2 pear"]
    items, total = await store.records.page(ALL, text="apple")
    assert total == 2 and [r.content for r in items] == ["note 3 apple", "note 1 apple"]
    assert await store.records.page(ALL, text="!!") == ([], 0)


async def test_delete_removes_the_record_its_tags_and_its_index_entry(store: MemoryStore) -> None:
    record = await put(store, "ephemeral fact", tags=("tmp",))
    deleted = await store.records.delete(record.id)
    assert deleted is not None and deleted.id == record.id
    assert await store.records.get(record.id) is None
    assert await store.records.search("ephemeral", ALL) == []
    assert await store.records.delete(record.id) is None
    tags = await store.db.read(
        lambda c: c.execute("SELECT count(*) FROM memory_tags").fetchone()[0]
    )
    assert tags == 0


async def test_delete_session_removes_only_that_sessions_tier(store: MemoryStore) -> None:
    await put(store, "one", "session", session_id="s1", project_id="p")
    await put(store, "two", "session", session_id="s1")
    keep = await put(store, "three", "project", session_id=None, project_id="p")
    other = await put(store, "four", "session", session_id="s2")
    assert await store.records.delete_session("s1") == 2
    items, _ = await store.records.page(ALL)
    assert {r.id for r in items} == {keep.id, other.id}


async def test_source_keys_make_repeated_inserts_harmless(store: MemoryStore) -> None:
    record = build_record(
        NewRecord(content="x", tier="global", source_key="exchange/r1/session", chunk_index=0),
        now_ms=1,
    )
    again = build_record(
        NewRecord(content="x", tier="global", source_key="exchange/r1/session", chunk_index=0),
        now_ms=2,
    )
    assert await store.records.insert([record], ignore_existing=True) == 1
    assert await store.records.insert([again], ignore_existing=True) == 0
    assert await store.records.count() == 1


async def test_records_round_trip_every_field(store: MemoryStore) -> None:
    record = await put(
        store,
        "full",
        "project",
        project_id="p",
        run_id="r",
        kind="fact",
        source_type="agent",
        classification="restricted",
        tags=("a",),
        metadata={"k": [1, 2]},
        artifact_refs=({"uri": "file://x"},),
        provenance={"by": "me"},
        visibility="private",
    )
    assert await store.records.get(record.id) == record
    wire = record.to_wire()
    assert wire["partition_key"] == "local/local/p/project"
    assert wire["text"] == wire["content"] == "full"
