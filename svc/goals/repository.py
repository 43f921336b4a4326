"""Goals and what hangs off them: handoffs, run links and waits (``goal_goals`` and children).

Every method is one round trip to the store. A goal's state changes are written by
:meth:`GoalRepository.commit` in one transaction together with their durable events
(:func:`.event_repository.append_events`), so the event history and the state never
disagree. Reads filter by tenant in SQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..store import IntegrityError, Store, Tx, dumps, loads
from .event_repository import append_events
from .events import GoalEvent, NewEvent

# The records of goal rows are imported where rows become records: start-up on a fresh
# store reads none (docs/architecture.md, "Start-up budget").

if TYPE_CHECKING:
    from .goal import Goal, Handoff, RunLink, Wait
    from .tenancy import TenantContext

SNAPSHOT_LIST_CAP = 250
"""Links, handoffs and waits kept in a projection snapshot (the newest ones)."""


@attrs.frozen
class Commit:
    """One atomic change of a goal: its new record, related records, and the events on it."""

    goal: Goal
    insert_goal: bool = False
    handoffs: tuple[Handoff, ...] = ()
    links: tuple[RunLink, ...] = ()
    waits: tuple[Wait, ...] = ()
    events: tuple[NewEvent, ...] = ()
    occurred_at_ms: int | None = None
    """When the events happened (default: the goal's ``updated_at_ms``)."""


class GoalExists(Exception):
    """A goal with this id was inserted concurrently (an idempotent start raced)."""


class GoalRepository:
    def __init__(self, db: Store, *, event_retention: int = 10_000) -> None:
        self._db = db
        self.event_retention = event_retention

    async def goal(self, goal_id: str, tenant: TenantContext | None = None) -> Goal | None:
        from .goal import Goal

        def q(tx: Tx) -> Goal | None:
            if tenant is None:
                row = tx.execute(
                    "SELECT record FROM goal_goals WHERE goal_id=?", (goal_id,)
                ).fetchone()
            else:
                row = tx.execute(
                    "SELECT record FROM goal_goals WHERE goal_id=? AND org_id=? AND workspace_id=? "
                    "AND deployment_key=?",
                    (goal_id, *tenant.key()),
                ).fetchone()
            return Goal.from_store(loads(row[0])) if row else None

        return await self._db.read(q)

    async def goals(
        self,
        tenant: TenantContext,
        *,
        status: str | None = None,
        orchestration_id: str | None = None,
        limit: int = 100,
    ) -> list[Goal]:
        from .goal import Goal

        def q(tx: Tx) -> list[Goal]:
            clauses = ["org_id=?", "workspace_id=?", "deployment_key=?"]
            params: list[Any] = list(tenant.key())
            if status is not None:
                clauses.append("status=?")
                params.append(status)
            if orchestration_id is not None:
                clauses.append("orchestration_id=?")
                params.append(orchestration_id)
            params.append(limit)
            return [
                Goal.from_store(loads(row[0]))
                for row in tx.execute(
                    f"SELECT record FROM goal_goals WHERE {' AND '.join(clauses)} "
                    "ORDER BY updated_at_ms DESC, goal_id LIMIT ?",
                    params,
                )
            ]

        return await self._db.read(q)

    async def open_goal_ids(self) -> list[str]:
        def q(tx: Tx) -> list[str]:
            return [
                row[0]
                for row in tx.execute(
                    "SELECT goal_id FROM goal_goals "
                    "WHERE status NOT IN ('completed','failed','cancelled','expired')"
                )
            ]

        return await self._db.read(q)

    async def handoffs(self, goal_id: str) -> list[Handoff]:
        return await self._db.read(_handoffs, goal_id)

    async def handoff_by_key(self, goal_id: str, idempotency_key: str) -> Handoff | None:
        from .goal import Handoff

        def q(tx: Tx) -> Handoff | None:
            row = tx.execute(
                "SELECT record FROM goal_handoffs WHERE goal_id=? AND idempotency_key=?",
                (goal_id, idempotency_key),
            ).fetchone()
            return Handoff.from_store(loads(row[0])) if row else None

        return await self._db.read(q)

    async def links(self, goal_id: str) -> list[RunLink]:
        return await self._db.read(_links, goal_id)

    async def waits(self, goal_id: str) -> list[Wait]:
        return await self._db.read(_waits, goal_id)

    async def commit(self, change: Commit) -> list[GoalEvent]:
        """Write ``change`` and its events atomically; return the events appended.

        An event whose id is already stored is skipped (a retried change appends once).
        """
        retention = self.event_retention

        def q(tx: Tx) -> list[GoalEvent]:
            goal = change.goal
            _write_goal(tx, goal, insert=change.insert_goal)
            for handoff in change.handoffs:
                tx.execute(
                    "INSERT INTO goal_handoffs(handoff_id, goal_id, idempotency_key, status, "
                    "consumed_by_run_id, created_at_ms, record) VALUES (?,?,?,?,?,?,?) "
                    "ON CONFLICT(handoff_id) DO UPDATE SET status=excluded.status, "
                    "consumed_by_run_id=excluded.consumed_by_run_id, record=excluded.record",
                    (
                        handoff.handoff_id,
                        handoff.goal_id,
                        handoff.idempotency_key,
                        handoff.status,
                        handoff.consumed_by_run_id,
                        handoff.created_at_ms,
                        dumps(handoff.to_store()),
                    ),
                )
            for link in change.links:
                tx.execute(
                    "INSERT INTO goal_run_links(goal_id, hop_index, run_id, triggering_handoff_id, "
                    "record) VALUES (?,?,?,?,?)",
                    (
                        link.goal_id,
                        link.hop_index,
                        link.run_id,
                        link.triggering_handoff_id,
                        dumps(link.to_store()),
                    ),
                )
            for wait in change.waits:
                tx.execute(
                    "INSERT INTO goal_waits(wait_id, goal_id, run_id, status, created_at_ms, "
                    "record) "
                    "VALUES (?,?,?,?,?,?) ON CONFLICT(wait_id) DO UPDATE SET "
                    "status=excluded.status, "
                    "record=excluded.record",
                    (
                        wait.wait_id,
                        wait.goal_id,
                        wait.run_id,
                        wait.status,
                        wait.created_at_ms,
                        dumps(wait.to_store()),
                    ),
                )
            if not change.events:
                return []
            return append_events(
                tx,
                goal,
                change.events,
                occurred_at_ms=(
                    change.occurred_at_ms
                    if change.occurred_at_ms is not None
                    else goal.updated_at_ms
                ),
                snapshot=_snapshot(tx, goal),
                retention=retention,
            )

        return await self._db.write(q)


# ---------------------------------------------------------------------- helpers (worker thread)
def _write_goal(tx: Tx, goal: Goal, *, insert: bool) -> None:
    if not insert:
        tx.execute(
            "UPDATE goal_goals SET status=?, updated_at_ms=?, record=? WHERE goal_id=?",
            (goal.status, goal.updated_at_ms, dumps(goal.to_store()), goal.goal_id),
        )
        return
    try:
        tx.execute(
            "INSERT INTO goal_goals(goal_id, org_id, workspace_id, deployment_key, "
            "orchestration_id, orchestration_version, status, created_at_ms, updated_at_ms, "
            "record) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                goal.goal_id,
                *goal.tenant_context.key(),
                goal.orchestration_id,
                goal.orchestration_version,
                goal.status,
                goal.created_at_ms,
                goal.updated_at_ms,
                dumps(goal.to_store()),
            ),
        )
    except IntegrityError:
        raise GoalExists(goal.goal_id) from None


def _handoffs(tx: Tx, goal_id: str) -> list[Handoff]:
    from .goal import Handoff

    return [
        Handoff.from_store(loads(row[0]))
        for row in tx.execute(
            "SELECT record FROM goal_handoffs WHERE goal_id=? ORDER BY created_at_ms, handoff_id",
            (goal_id,),
        )
    ]


def _links(tx: Tx, goal_id: str) -> list[RunLink]:
    from .goal import RunLink

    return [
        RunLink.from_store(loads(row[0]))
        for row in tx.execute(
            "SELECT record FROM goal_run_links WHERE goal_id=? ORDER BY hop_index", (goal_id,)
        )
    ]


def _waits(tx: Tx, goal_id: str) -> list[Wait]:
    from .goal import Wait

    return [
        Wait.from_store(loads(row[0]))
        for row in tx.execute(
            "SELECT record FROM goal_waits WHERE goal_id=? ORDER BY created_at_ms, wait_id",
            (goal_id,),
        )
    ]


def _snapshot(tx: Tx, goal: Goal) -> dict[str, Any]:
    """The projection state right after a commit (lists capped to their newest entries)."""
    return {
        "goal": goal.summary(),
        "links": [link.to_wire() for link in _links(tx, goal.goal_id)[-SNAPSHOT_LIST_CAP:]],
        "handoffs": [h.to_wire() for h in _handoffs(tx, goal.goal_id)[-SNAPSHOT_LIST_CAP:]],
        "waits": [w.to_store() for w in _waits(tx, goal.goal_id)[-SNAPSHOT_LIST_CAP:]],
    }


__all__ = ["Commit", "GoalExists", "GoalRepository"]
