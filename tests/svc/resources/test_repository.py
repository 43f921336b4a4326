"""The resource repository on each store backend: revisions, prefixes, expiry."""

from __future__ import annotations

from collections.abc import Callable

from svc.resources import Resource, ResourceRepository
from svc.store import Store


def value(v: object) -> Callable[[Resource | None], object]:
    return lambda _current: v


async def test_revisions_count_up_and_a_stale_expectation_changes_nothing(
    store_backend: Store,
) -> None:
    repo = ResourceRepository(store_backend)
    first = await repo.put(
        "k", value(1), expected_rev=0, updated_by="a", expires_at_ms=None, now_ms=10
    )
    assert first.resource is not None and first.resource.rev == 1
    second = await repo.put(
        "k", value(2), expected_rev=None, updated_by=None, expires_at_ms=None, now_ms=20
    )
    assert second.resource is not None and second.resource.rev == 2
    assert second.resource.created_at_ms == 10 and second.resource.updated_at_ms == 20
    stale = await repo.put(
        "k", value(3), expected_rev=1, updated_by=None, expires_at_ms=None, now_ms=30
    )
    assert stale.conflict and stale.current_rev == 2
    got = await repo.get("k", now_ms=40)
    assert got is not None and got.value == 2


async def test_prefix_pages_and_expiry(store_backend: Store) -> None:
    repo = ResourceRepository(store_backend)
    for key in ("a/1", "a/2", "a_3", "b/1"):
        await repo.put(
            key, value(key), expected_rev=None, updated_by=None, expires_at_ms=None, now_ms=1
        )
    await repo.put(
        "a/0", value("x"), expected_rev=None, updated_by=None, expires_at_ms=50, now_ms=1
    )
    assert [r.key for r in await repo.page(prefix="a/", limit=10, now_ms=10)] == [
        "a/0",
        "a/1",
        "a/2",
    ]
    # Past its expiry an entry reads as absent, and a new write starts it again at revision 1.
    assert [r.key for r in await repo.page(prefix="a/", limit=10, now_ms=60)] == ["a/1", "a/2"]
    assert await repo.get("a/0", now_ms=60) is None
    again = await repo.put(
        "a/0", value("y"), expected_rev=0, updated_by=None, expires_at_ms=None, now_ms=70
    )
    assert again.resource is not None and again.resource.rev == 1


async def test_delete_reports_what_was_there(store_backend: Store) -> None:
    repo = ResourceRepository(store_backend)
    await repo.put("k", value(1), expected_rev=None, updated_by=None, expires_at_ms=None, now_ms=1)
    assert (await repo.delete("k", expected_rev=5, now_ms=2)).conflict
    gone = await repo.delete("k", expected_rev=1, now_ms=2)
    assert gone.resource is not None and gone.resource.rev == 1
    assert (await repo.delete("k", expected_rev=None, now_ms=3)).resource is None
