"""The search index seam: each backend's index (SQLite's FTS5, PostgreSQL's
tsvector) answers what the record repository asks."""

from __future__ import annotations

from svc.memory import MemoryScope, MemoryStore
from svc.memory.pg_search_repository import PgSearchIndex, lexemes, terms_query
from svc.memory.search_index_repository import IndexQuery, SearchIndex
from svc.memory.sqlite_fts_repository import SqliteFtsIndex
from svc.memory.store import search_index_for
from svc.store import Tx
from tests.svc.memory.support import put


async def test_each_backend_gets_its_own_index(store: MemoryStore) -> None:
    index: SearchIndex = search_index_for(store.db)
    expected = SqliteFtsIndex if store.db.kind == "sqlite" else PgSearchIndex
    assert isinstance(index, expected)


async def test_the_index_ranks_keys_best_first_within_the_scope(store: MemoryStore) -> None:
    index = search_index_for(store.db)
    strong = await put(store, "zeppelin zeppelin hangar")
    await put(store, "a zeppelin once flew over the long and very windy valley of rivers")
    await put(store, "zeppelin in a project", "project", project_id="p")

    def ranked(tx: Tx, query: IndexQuery) -> list[tuple[float, int]]:
        return index.ranked(tx, query, check=None, limit=10)

    everything = await store.db.read(ranked, IndexQuery(("zeppelin",)))
    assert len(everything) == 3
    assert [s for s, _ in everything] == sorted((s for s, _ in everything), reverse=True)
    first = await store.db.read(
        lambda tx: tx.execute("SELECT seq FROM memory_records WHERE id = ?", (strong.id,)).scalar()
    )
    assert everything[0][1] == first
    global_only = MemoryScope.for_context(session_id=None, project_id=None).clauses
    assert len(await store.db.read(ranked, IndexQuery(("zeppelin",), clauses=global_only))) == 2
    assert await store.db.read(ranked, IndexQuery(("zeppelin",), clauses=())) == []
    prefixes = IndexQuery(("zepp",), prefix=True)
    assert len(await store.db.read(ranked, prefixes)) == 3


def test_a_listing_without_words_matches_nothing() -> None:
    assert SqliteFtsIndex().matching(IndexQuery(())).sql == "FALSE"


def test_postgresql_queries_or_the_terms_and_quote_scope_tokens_verbatim() -> None:
    assert terms_query(["deploy", "k8s"]) == "deploy | k8s"
    assert terms_query(["rotat"], prefix=True) == "rotat:*"
    assert terms_query([]) is None
    assert lexemes(["0tglobal", "0p1f"]) == "'0tglobal' | '0p1f'"
    assert PgSearchIndex().matching(IndexQuery(())).sql == "FALSE"


async def test_demoted_records_are_left_out_unless_asked_for(store: MemoryStore) -> None:
    record = await put(store, "zeppelin hangar")
    await store.records.set_demoted(record.id, demoted=True, now_ms=2_000)
    index = search_index_for(store.db)

    def ranked(tx: Tx, query: IndexQuery) -> list[tuple[float, int]]:
        return index.ranked(tx, query, check=None, limit=10)

    assert await store.db.read(ranked, IndexQuery(("zeppelin",))) == []
    found = await store.db.read(ranked, IndexQuery(("zeppelin",), include_demoted=True))
    assert len(found) == 1
