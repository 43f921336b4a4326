"""The events table: a batch in one write, pages narrowed by indexed keys, the highest seq."""

from __future__ import annotations

from pathlib import Path

from svc.events import Event, EventFilter
from svc.events._event import make_event
from svc.events.repository import EventRepository
from svc.store import Store, open_sqlite_store


def ten_events() -> list[Event]:
    """Seqs 1..10: odd ones in session s1, multiples of 3 on the memory topic."""
    return [
        make_event(
            seq=i,
            event_id=f"e{i}",
            type="t.x",
            properties={"i": i},
            occurred_at_ms=i,
            session_id="s1" if i % 2 else None,
            run_id=None,
            topic="memory" if i % 3 == 0 else None,
        )
        for i in range(1, 11)
    ]


async def test_an_empty_log_has_max_seq_zero_and_a_batch_lands_whole(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db:
        repository = EventRepository(db)
        assert await repository.max_seq() == 0
        batch = ten_events()
        await repository.append(batch)
        assert await repository.max_seq() == 10
        every = await repository.page(
            EventFilter(), after=0, before=11, limit=100, newest_first=False
        )
        assert [e.seq for e in every] == list(range(1, 11))
        assert every[0].data == batch[0].data and every[0].properties == {"i": 1}


async def test_pages_are_narrowed_by_session_or_topic_and_read_either_way(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "svc.db") as db:
        repository = EventRepository(db)
        await repository.append(ten_events())
        session = await repository.page(
            EventFilter(session_id="s1"), after=2, before=10, limit=100, newest_first=False
        )
        assert [e.seq for e in session] == [3, 5, 7, 9]
        topic = await repository.page(
            EventFilter(topic="memory"), after=0, before=11, limit=2, newest_first=True
        )
        assert [e.seq for e in topic] == [9, 6]


async def test_pages_are_narrowed_by_types_and_type_prefixes(store_backend: Store) -> None:
    repository = EventRepository(store_backend)
    kinds = ["session.run.finished", "message.part.updated", "goal.step", "goals.x", "Goal.a"]
    await repository.append(
        [
            make_event(
                seq=i,
                event_id=f"e{i}",
                type=kinds[i // 100 % len(kinds)] if i % 100 == 0 else "message.part.updated",
                properties={"i": i},
                occurred_at_ms=i,
                session_id=None,
                run_id=None,
                topic=None,
            )
            for i in range(1, 2001)
        ]
    )

    async def seqs(filter: EventFilter, limit: int = 10) -> list[int]:
        page = await repository.page(filter, after=0, before=2001, limit=limit, newest_first=False)
        return [e.seq for e in page]

    # a rare type far apart in a long log: the page holds only it, however sparse
    finished = EventFilter(types=frozenset({"session.run.finished"}))
    assert await seqs(finished) == [500, 1000, 1500, 2000]
    # prefixes are exact and case-sensitive, like the filter's own check
    assert await seqs(EventFilter(type_prefixes=("goal.",))) == [200, 700, 1200, 1700]
    assert await seqs(EventFilter(types=frozenset())) == []
    everything = EventFilter(types=frozenset(kinds))
    assert len(await seqs(everything, limit=5000)) == 2000
