"""Durable goal events (``goal_events``): appended with the change they describe, read by cursor.

Appending runs inside :meth:`GoalRepository.commit`'s transaction (see
:func:`append_events`); the reads here serve event pages, SSE replay and
projections. ``cursor`` is an ``AUTOINCREMENT`` key, read back with ``RETURNING``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..store import Store, Tx, dumps, loads
from .events import SCHEMA_VERSION, GoalEvent, NewEvent, goal_stream_id

if TYPE_CHECKING:
    from .goal import Goal

_NO_UPPER_BOUND = 2**62


def append_events(
    tx: Tx,
    goal: Goal,
    events: Sequence[NewEvent],
    *,
    occurred_at_ms: int,
    snapshot: Mapping[str, Any],
    retention: int,
) -> list[GoalEvent]:
    """Append ``events`` of ``goal`` (an event id already stored is skipped); trim to retention."""
    stored_snapshot = dumps(snapshot)
    appended = []
    for event in events:
        run_id = event.run_id or goal_stream_id(goal.goal_id)
        seq = tx.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM goal_events WHERE run_id=?", (run_id,)
        ).scalar(1)
        record = {
            "schema_version": SCHEMA_VERSION,
            "event_id": event.event_id,
            "run_id": run_id,
            "seq": seq,
            "event_type": event.event_type,
            "occurred_at_ms": occurred_at_ms,
            "scope": {
                "schema_version": SCHEMA_VERSION,
                "tenant_context": goal.tenant_context.to_wire(),
            },
            "actor": dict(event.actor) if event.actor is not None else None,
            "causation_id": event.causation_id,
            "correlation_id": goal.goal_id,
            "payload": dict(event.payload),
        }
        cursor = tx.execute(
            "INSERT INTO goal_events(event_id, goal_id, run_id, seq, event_type, occurred_at_ms, "
            "record, snapshot) VALUES (?,?,?,?,?,?,?,?) "
            "ON CONFLICT DO NOTHING RETURNING cursor",
            (
                event.event_id,
                goal.goal_id,
                run_id,
                seq,
                event.event_type,
                occurred_at_ms,
                dumps(record),
                stored_snapshot,
            ),
        ).scalar()
        if cursor is not None:
            appended.append(GoalEvent(cursor, goal.goal_id, record))
    if appended and retention > 0:
        tx.execute(
            "DELETE FROM goal_events WHERE goal_id=? AND cursor < (SELECT cursor FROM goal_events "
            "WHERE goal_id=? ORDER BY cursor DESC LIMIT 1 OFFSET ?)",
            (goal.goal_id, goal.goal_id, retention - 1),
        )
    return appended


class GoalEventRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def events_after(self, goal_id: str, after: int, limit: int) -> list[GoalEvent]:
        def q(tx: Tx) -> list[GoalEvent]:
            return [
                GoalEvent(row[0], goal_id, loads(row[1]))
                for row in tx.execute(
                    "SELECT cursor, record FROM goal_events WHERE goal_id=? AND cursor > ? "
                    "ORDER BY cursor LIMIT ?",
                    (goal_id, after, limit),
                )
            ]

        return await self._db.read(q)

    async def event_bounds(self, goal_id: str) -> tuple[int, int]:
        """``(retained_from_cursor, live_cursor)``; ``(0, 0)`` when the goal has no events."""

        def q(tx: Tx) -> tuple[int, int]:
            row = tx.execute(
                "SELECT MIN(cursor), MAX(cursor) FROM goal_events WHERE goal_id=?", (goal_id,)
            ).fetchone()
            return (row[0] or 0, row[1] or 0) if row else (0, 0)

        return await self._db.read(q)

    async def events_window(self, goal_id: str, upto: int | None, limit: int) -> list[GoalEvent]:
        """The newest ``limit`` events with cursor <= ``upto`` (all when None), oldest first.

        With their snapshots, which replay-mode projections read.
        """

        def q(tx: Tx) -> list[GoalEvent]:
            bound = upto if upto is not None else _NO_UPPER_BOUND
            rows = tx.execute(
                "SELECT cursor, record, snapshot FROM goal_events WHERE goal_id=? AND cursor <= ? "
                "ORDER BY cursor DESC LIMIT ?",
                (goal_id, bound, limit),
            ).fetchall()
            rows.reverse()
            return [GoalEvent(row[0], goal_id, loads(row[1]), loads(row[2])) for row in rows]

        return await self._db.read(q)


__all__ = ["GoalEventRepository", "append_events"]
