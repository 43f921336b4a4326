"""The history a run replays, read newest first, and messages read by id, on each store
backend."""

from __future__ import annotations

from svc.sessions.records import Message, Session
from svc.sessions.repository import SessionRepository
from svc.store import Store


async def two_sessions(store: Store) -> SessionRepository:
    repo = SessionRepository(store)
    await repo.create(Session("s1", "t", "/tmp", 1, 1))
    await repo.create(Session("s2", "t", "/tmp", 1, 1))
    return repo


async def test_recent_messages_pass_over_hidden_ones_and_skipped_runs(
    store_backend: Store,
) -> None:
    repo = await two_sessions(store_backend)

    async def add(sid: str, n: int, *, run: str | None = None, reverted: bool = False) -> None:
        info = {"reverted": True} if reverted else {}
        parts = ({"type": "text", "text": f"m{n}"},)
        await repo.add_message(Message(f"{sid}-m{n}", sid, "user", parts, n, run, info))

    for n in range(1, 6):
        await add("s1", n)
        await add("s2", n)
    # More hidden messages than one page holds, then the current run's own.
    for n in range(6, 40):
        await add("s1", n, reverted=True)
    await add("s1", 40, run="r-now")
    await add("s1", 41)

    texts = [m.text() for m in await repo.recent_messages("s1", 3, skip={"r-now", "s1-m41"})]
    assert texts == ["m3", "m4", "m5"]
    assert [m.text() for m in await repo.recent_messages("s1", 3)] == ["m5", "m40", "m41"]
    everything = await repo.recent_messages("s2", 50)
    assert [m.text() for m in everything] == ["m1", "m2", "m3", "m4", "m5"]
    assert await repo.recent_messages("nope", 3) == []


async def test_messages_by_id_read_only_visible_ones_of_the_session(
    store_backend: Store,
) -> None:
    repo = await two_sessions(store_backend)
    for n in range(1, 200):
        info = {"reverted": True} if n == 7 else {}
        parts = ({"type": "text", "text": f"m{n}"},)
        await repo.add_message(Message(f"s1-m{n}", "s1", "user", parts, n, None, info))
    await repo.add_message(Message("s2-m1", "s2", "user", ({"type": "text", "text": "x"},), 1))
    # the first messages of a long transcript, one hidden by a revert, one of another
    # session, one that does not exist; an id asked twice is read once
    found = await repo.messages_by_id("s1", ["s1-m1", "s1-m2", "s1-m2", "s1-m7", "s2-m1", "no"])
    assert {k: m.text() for k, m in found.items()} == {"s1-m1": "m1", "s1-m2": "m2"}
    assert await repo.messages_by_id("s1", []) == {}
