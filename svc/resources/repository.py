"""The ``resources`` table: one JSON value per key, with a revision per write.

A write that names the revision it expects is a compare-and-set done inside
one transaction (read the current revision, then write), so two writers that
both read revision 3 cannot both install revision 4; a patch computes the new
value from the current one inside that same transaction. An expired entry (its
``ttl_ms`` passed) reads as absent and is removed by the next write of its key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from ..store import Store, Tx, dumps, loads

_COLUMNS = "key, value, rev, created_at_ms, updated_at_ms, updated_by, expires_at_ms"


@attrs.frozen
class Resource:
    """One stored entry."""

    key: str
    value: Any
    rev: int
    created_at_ms: int
    updated_at_ms: int
    updated_by: str | None = None
    expires_at_ms: int | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "value": self.value,
            "rev": self.rev,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "updated_by": self.updated_by,
            "expires_at_ms": self.expires_at_ms,
        }


@attrs.frozen
class Outcome:
    """What a conditional write or delete found: the entry after it, or why it did nothing."""

    resource: Resource | None
    """The entry as written (a write), or as it was (a delete); None when absent."""
    conflict: bool = False
    """The expected revision did not match; ``current_rev`` is what was there (0: absent)."""
    current_rev: int = 0


def _row(row: Any) -> Resource:
    key, value, rev, created, updated, by, expires = row
    return Resource(key, loads(value), rev, created, updated, by, expires)


def _live(tx: Tx, key: str, now_ms: int) -> Resource | None:
    row = tx.execute(
        f"SELECT {_COLUMNS} FROM resources WHERE key = ? "
        "AND (expires_at_ms IS NULL OR expires_at_ms > ?)",
        (key, now_ms),
    ).fetchone()
    return _row(row) if row else None


def _get(tx: Tx, key: str, now_ms: int) -> Resource | None:
    return _live(tx, key, now_ms)


def _page(tx: Tx, prefix: str, limit: int, now_ms: int) -> list[Resource]:
    rows = tx.execute(
        f"SELECT {_COLUMNS} FROM resources "
        "WHERE substr(key, 1, ?) = ? AND (expires_at_ms IS NULL OR expires_at_ms > ?) "
        "ORDER BY key LIMIT ?",
        (len(prefix), prefix, now_ms, limit),
    )
    return [_row(r) for r in rows]


def _put(
    tx: Tx,
    key: str,
    make_value: Callable[[Resource | None], Any],
    expected_rev: int | None,
    updated_by: str | None,
    expires_at_ms: int | None,
    now_ms: int,
) -> Outcome:
    current = _live(tx, key, now_ms)
    current_rev = current.rev if current else 0
    if expected_rev is not None and expected_rev != current_rev:
        return Outcome(current, conflict=True, current_rev=current_rev)
    value = make_value(current)
    if current is None:
        # An expired row is still there: the new entry replaces it from revision 1.
        tx.execute("DELETE FROM resources WHERE key = ?", (key,))
    created = current.created_at_ms if current else now_ms
    written = Resource(key, value, current_rev + 1, created, now_ms, updated_by, expires_at_ms)
    tx.execute(
        f"INSERT INTO resources ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value, rev = excluded.rev, "
        "updated_at_ms = excluded.updated_at_ms, updated_by = excluded.updated_by, "
        "expires_at_ms = excluded.expires_at_ms",
        (key, dumps(value), written.rev, created, now_ms, updated_by, expires_at_ms),
    )
    return Outcome(written, current_rev=current_rev)


def _delete(tx: Tx, key: str, expected_rev: int | None, now_ms: int) -> Outcome:
    current = _live(tx, key, now_ms)
    current_rev = current.rev if current else 0
    if expected_rev is not None and expected_rev != current_rev:
        return Outcome(current, conflict=True, current_rev=current_rev)
    tx.execute("DELETE FROM resources WHERE key = ?", (key,))
    return Outcome(current, current_rev=current_rev)


class ResourceRepository:
    """Entries of the key/value resource store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def get(self, key: str, *, now_ms: int) -> Resource | None:
        return await self._store.read(_get, key, now_ms)

    async def page(self, *, prefix: str, limit: int, now_ms: int) -> list[Resource]:
        return await self._store.read(_page, prefix, limit, now_ms)

    async def put(
        self,
        key: str,
        make_value: Callable[[Resource | None], Any],
        *,
        expected_rev: int | None,
        updated_by: str | None,
        expires_at_ms: int | None,
        now_ms: int,
    ) -> Outcome:
        return await self._store.write(
            _put, key, make_value, expected_rev, updated_by, expires_at_ms, now_ms
        )

    async def delete(self, key: str, *, expected_rev: int | None, now_ms: int) -> Outcome:
        return await self._store.write(_delete, key, expected_rev, now_ms)


__all__ = ["Outcome", "Resource", "ResourceRepository"]
