"""The search index seam: the SQLite FTS5 index answers what the record repository asks."""

from __future__ import annotations

from svc.memory import MemoryScope, MemoryStore
from svc.memory.search_index_repository import IndexQuery, SearchIndex
from svc.memory.sqlite_fts_repository import SqliteFtsIndex
from svc.memory.store import search_index_for
from svc.store import Tx
from tests.svc.memory.support import put


async def test_a_sqlite_store_gets_the_fts5_index(store: MemoryStore) -> None:
    index: SearchIndex = search_index_for(store.db)
    assert isinstance(index, SqliteFtsIndex)


async def test_the_index_ranks_keys_best_first_within_the_scope(store: MemoryStore) -> None:
    index = SqliteFtsIndex()
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
