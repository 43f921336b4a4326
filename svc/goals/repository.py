"""Orchestrations, goals, handoffs, run links, waits, durable events and the request ledger in SQLite.

Every method is one round trip to the store. A goal's state changes are written by
:meth:`GoalRepository.commit` in one transaction together with their durable events,
so the event history and the state never disagree. Reads filter by tenant in SQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from ..store import IntegrityError, Store, Tx, dumps, loads
from .errors import DraftConcurrencyConflict, PublishedVersionConflict
from .events import SCHEMA_VERSION, GoalEvent, NewEvent, goal_stream_id

# The records of goal and orchestration rows are imported where rows become records:
# start-up on a fresh store reads none (docs/architecture.md, "Start-up budget").

if TYPE_CHECKING:
    from .goal import Goal, Handoff, RunLink, Wait
    from .orchestration import Orchestration
    from .tenancy import TenantContext

SNAPSHOT_LIST_CAP = 250
"""Links, handoffs and waits kept in a projection snapshot (the newest ones)."""


@attrs.frozen
class StoredOrchestration:
    spec: Orchestration
    snapshots: dict[str, Any] | None = None
    """Published versions: automation_id -> the frozen automation definition."""


@attrs.frozen
class Commit:
    """One atomic change of a goal: its new record, related records, and the events describing it."""

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


@attrs.frozen
class LedgerEntry:
    request_digest: str
    response: Any
    created_at_ms: int
    completed_at_ms: int | None


def _stored_orchestration(row: tuple[Any, ...]) -> StoredOrchestration:
    from .orchestration import record_from_json

    return StoredOrchestration(record_from_json(loads(row[0])), loads(row[1]))


class GoalRepository:
    def __init__(self, db: Store, *, event_retention: int = 10_000) -> None:
        self._db = db
        self.event_retention = event_retention

    # ================================================================== orchestrations
    async def orchestration(
        self, tenant: TenantContext, orchestration_id: str, version: int
    ) -> StoredOrchestration | None:
        def q(tx: Tx) -> StoredOrchestration | None:
            row = tx.execute(
                "SELECT record, workflow_snapshots FROM goal_orchestrations WHERE org_id=? AND workspace_id=? "
                "AND deployment_key=? AND orchestration_id=? AND version=?",
                (*tenant.key(), orchestration_id, version),
            ).fetchone()
            return _stored_orchestration(row) if row else None

        return await self._db.read(q)

    async def latest_published(
        self, tenant: TenantContext, orchestration_id: str
    ) -> StoredOrchestration | None:
        def q(tx: Tx) -> StoredOrchestration | None:
            row = tx.execute(
                "SELECT record, workflow_snapshots FROM goal_orchestrations WHERE org_id=? AND workspace_id=? "
                "AND deployment_key=? AND orchestration_id=? AND version > 0 ORDER BY version DESC LIMIT 1",
                (*tenant.key(), orchestration_id),
            ).fetchone()
            return _stored_orchestration(row) if row else None

        return await self._db.read(q)

    async def insert_draft(self, spec: Orchestration) -> None:
        def q(tx: Tx) -> None:
            exists = tx.execute(
                "SELECT updated_at_ms FROM goal_orchestrations WHERE org_id=? AND workspace_id=? AND "
                "deployment_key=? AND orchestration_id=? AND version=0",
                (*spec.tenant_context.key(), spec.orchestration_id),
            ).fetchone()
            if exists:
                raise DraftConcurrencyConflict(
                    f"draft {spec.orchestration_id!r} already exists; update it with PUT and send "
                    "expected_updated_at_ms",
                    updated_at_ms=exists[0],
                )
            _write_orchestration(tx, spec, None, insert=True)

        await self._db.write(q)

    async def replace_draft(self, spec: Orchestration, expected_updated_at_ms: int) -> None:
        """Compare-and-swap on the draft's ``updated_at_ms``."""

        def q(tx: Tx) -> None:
            row = tx.execute(
                "SELECT updated_at_ms FROM goal_orchestrations WHERE org_id=? AND workspace_id=? AND "
                "deployment_key=? AND orchestration_id=? AND version=0",
                (*spec.tenant_context.key(), spec.orchestration_id),
            ).fetchone()
            if row is None:
                raise DraftConcurrencyConflict("the draft no longer exists", updated_at_ms=None)
            if row[0] != expected_updated_at_ms:
                raise DraftConcurrencyConflict(
                    f"orchestration draft was modified concurrently: stored updated_at_ms {row[0]}, "
                    f"expected {expected_updated_at_ms}",
                    updated_at_ms=row[0],
                )
            _write_orchestration(tx, spec, None, insert=False)

        await self._db.write(q)

    async def publish(
        self,
        tenant: TenantContext,
        orchestration_id: str,
        draft_updated_at_ms: int,
        build: Callable[[int], Orchestration],
        snapshots: dict[str, Any],
    ) -> Orchestration:
        """Insert the next version (built by ``build(version)``) if the draft is still the one validated."""

        def q(tx: Tx) -> Orchestration:
            row = tx.execute(
                "SELECT updated_at_ms FROM goal_orchestrations WHERE org_id=? AND workspace_id=? AND "
                "deployment_key=? AND orchestration_id=? AND version=0",
                (*tenant.key(), orchestration_id),
            ).fetchone()
            if row is None or row[0] != draft_updated_at_ms:
                raise DraftConcurrencyConflict(
                    "orchestration draft was modified while it was being published",
                    updated_at_ms=row[0] if row else None,
                )
            top = tx.execute(
                "SELECT COALESCE(MAX(version), 0) FROM goal_orchestrations WHERE org_id=? AND workspace_id=? "
                "AND deployment_key=? AND orchestration_id=?",
                (*tenant.key(), orchestration_id),
            ).fetchone()[0]
            spec = build(int(top) + 1)
            try:
                _write_orchestration(tx, spec, snapshots, insert=True)
            except IntegrityError:
                raise PublishedVersionConflict(
                    "a concurrent publish raced this one; retry"
                ) from None
            return spec

        return await self._db.write(q)

    async def list_orchestrations(self, tenant: TenantContext) -> list[dict[str, Any]]:
        """Per orchestration id: the draft status/time and the published versions."""

        def q(tx: Tx) -> list[dict[str, Any]]:
            summaries: dict[str, dict[str, Any]] = {}
            for oid, version, status, name, updated, published in tx.execute(
                "SELECT orchestration_id, version, status, name, updated_at_ms, published_at_ms "
                "FROM goal_orchestrations WHERE org_id=? AND workspace_id=? AND deployment_key=? "
                "ORDER BY orchestration_id, version",
                tenant.key(),
            ):
                entry = summaries.setdefault(
                    oid,
                    {
                        "orchestration_id": oid,
                        "name": name,
                        "draft": None,
                        "latest_published_version": None,
                        "published_versions": [],
                    },
                )
                if version == 0:
                    entry["draft"] = {"status": status, "updated_at_ms": updated}
                    entry["name"] = name
                else:
                    entry["published_versions"].append(
                        {"version": version, "published_at_ms": published}
                    )
                    entry["latest_published_version"] = version
                    if entry["draft"] is None:
                        entry["name"] = name
            return list(summaries.values())

        return await self._db.read(q)

    async def versions(self, tenant: TenantContext, orchestration_id: str) -> list[Orchestration]:
        from .orchestration import record_from_json

        def q(tx: Tx) -> list[Orchestration]:
            return [
                record_from_json(loads(row[0]))
                for row in tx.execute(
                    "SELECT record FROM goal_orchestrations WHERE org_id=? AND workspace_id=? AND deployment_key=? "
                    "AND orchestration_id=? AND version > 0 ORDER BY version",
                    (*tenant.key(), orchestration_id),
                )
            ]

        return await self._db.read(q)

    # ================================================================== goals
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
                    "SELECT goal_id FROM goal_goals WHERE status NOT IN ('completed','failed','cancelled','expired')"
                )
            ]

        return await self._db.read(q)

    async def handoffs(self, goal_id: str) -> list[Handoff]:
        def q(tx: Tx) -> list[Handoff]:
            return _handoffs(tx, goal_id)

        return await self._db.read(q)

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
        def q(tx: Tx) -> list[RunLink]:
            return _links(tx, goal_id)

        return await self._db.read(q)

    async def waits(self, goal_id: str) -> list[Wait]:
        def q(tx: Tx) -> list[Wait]:
            return _waits(tx, goal_id)

        return await self._db.read(q)

    async def commit(self, change: Commit) -> list[GoalEvent]:
        """Write ``change`` and its events atomically; return the events appended (duplicates are skipped)."""
        retention = self.event_retention

        def q(tx: Tx) -> list[GoalEvent]:
            goal = change.goal
            row = (
                goal.goal_id,
                *goal.tenant_context.key(),
                goal.orchestration_id,
                goal.orchestration_version,
                goal.status,
                goal.created_at_ms,
                goal.updated_at_ms,
                dumps(goal.to_store()),
            )
            if change.insert_goal:
                try:
                    tx.execute(
                        "INSERT INTO goal_goals(goal_id, org_id, workspace_id, deployment_key, orchestration_id, "
                        "orchestration_version, status, created_at_ms, updated_at_ms, record) "
                        "VALUES (?,?,?,?,?,?,?,?,?,?)",
                        row,
                    )
                except IntegrityError:
                    raise GoalExists(goal.goal_id) from None
            else:
                tx.execute(
                    "UPDATE goal_goals SET status=?, updated_at_ms=?, record=? WHERE goal_id=?",
                    (goal.status, goal.updated_at_ms, dumps(goal.to_store()), goal.goal_id),
                )
            for handoff in change.handoffs:
                tx.execute(
                    "INSERT INTO goal_handoffs(handoff_id, goal_id, idempotency_key, status, consumed_by_run_id, "
                    "created_at_ms, record) VALUES (?,?,?,?,?,?,?) ON CONFLICT(handoff_id) DO UPDATE SET "
                    "status=excluded.status, consumed_by_run_id=excluded.consumed_by_run_id, record=excluded.record",
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
                    "INSERT INTO goal_run_links(goal_id, hop_index, run_id, triggering_handoff_id, record) "
                    "VALUES (?,?,?,?,?)",
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
                    "INSERT INTO goal_waits(wait_id, goal_id, run_id, status, created_at_ms, record) "
                    "VALUES (?,?,?,?,?,?) ON CONFLICT(wait_id) DO UPDATE SET status=excluded.status, "
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
            snapshot = dumps(_snapshot(tx, goal))
            occurred = (
                change.occurred_at_ms if change.occurred_at_ms is not None else goal.updated_at_ms
            )
            appended = []
            for event in change.events:
                run_id = event.run_id or goal_stream_id(goal.goal_id)
                seq = tx.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM goal_events WHERE run_id=?", (run_id,)
                ).fetchone()[0]
                record = {
                    "schema_version": SCHEMA_VERSION,
                    "event_id": event.event_id,
                    "run_id": run_id,
                    "seq": seq,
                    "event_type": event.event_type,
                    "occurred_at_ms": occurred,
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
                        occurred,
                        dumps(record),
                        snapshot,
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

        return await self._db.write(q)

    # ================================================================== events
    async def events_after(self, goal_id: str, after: int, limit: int) -> list[GoalEvent]:
        def q(tx: Tx) -> list[GoalEvent]:
            return [
                GoalEvent(row[0], goal_id, loads(row[1]))
                for row in tx.execute(
                    "SELECT cursor, record FROM goal_events WHERE goal_id=? AND cursor > ? ORDER BY cursor LIMIT ?",
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
            return (row[0] or 0, row[1] or 0)

        return await self._db.read(q)

    async def events_window(self, goal_id: str, upto: int | None, limit: int) -> list[GoalEvent]:
        """The newest ``limit`` events with cursor <= ``upto`` (all when None), oldest first, with snapshots."""

        def q(tx: Tx) -> list[GoalEvent]:
            bound = upto if upto is not None else 2**62
            rows = tx.execute(
                "SELECT cursor, record, snapshot FROM goal_events WHERE goal_id=? AND cursor <= ? "
                "ORDER BY cursor DESC LIMIT ?",
                (goal_id, bound, limit),
            ).fetchall()
            rows.reverse()
            return [GoalEvent(row[0], goal_id, loads(row[1]), loads(row[2])) for row in rows]

        return await self._db.read(q)

    # ================================================================== ledger
    async def request(self, tenant: TenantContext, operation: str, key: str) -> LedgerEntry | None:
        def q(tx: Tx) -> LedgerEntry | None:
            row = tx.execute(
                "SELECT request_digest, response, created_at_ms, completed_at_ms FROM goal_requests WHERE "
                "org_id=? AND workspace_id=? AND deployment_key=? AND operation=? AND idempotency_key=?",
                (*tenant.key(), operation, key),
            ).fetchone()
            return LedgerEntry(row[0], loads(row[1]), row[2], row[3]) if row else None

        return await self._db.read(q)

    async def reserve_request(
        self, tenant: TenantContext, operation: str, key: str, request_digest: str, now_ms: int
    ) -> LedgerEntry | None:
        """Reserve the key; returns the existing entry instead when one exists."""

        def q(tx: Tx) -> LedgerEntry | None:
            row = tx.execute(
                "SELECT request_digest, response, created_at_ms, completed_at_ms FROM goal_requests WHERE "
                "org_id=? AND workspace_id=? AND deployment_key=? AND operation=? AND idempotency_key=?",
                (*tenant.key(), operation, key),
            ).fetchone()
            if row is not None:
                return LedgerEntry(row[0], loads(row[1]), row[2], row[3])
            tx.execute(
                "INSERT INTO goal_requests(org_id, workspace_id, deployment_key, operation, idempotency_key, "
                "request_digest, created_at_ms) VALUES (?,?,?,?,?,?,?)",
                (*tenant.key(), operation, key, request_digest, now_ms),
            )
            return None

        return await self._db.write(q)

    async def complete_request(
        self, tenant: TenantContext, operation: str, key: str, response: Any, now_ms: int
    ) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "UPDATE goal_requests SET response=?, completed_at_ms=? WHERE org_id=? AND workspace_id=? AND "
                "deployment_key=? AND operation=? AND idempotency_key=?",
                (dumps(response), now_ms, *tenant.key(), operation, key),
            )

        await self._db.write(q)

    async def release_request(self, tenant: TenantContext, operation: str, key: str) -> None:
        """Forget a reservation whose request failed, so a retry can run it."""

        def q(tx: Tx) -> None:
            tx.execute(
                "DELETE FROM goal_requests WHERE org_id=? AND workspace_id=? AND deployment_key=? AND operation=? "
                "AND idempotency_key=? AND completed_at_ms IS NULL",
                (*tenant.key(), operation, key),
            )

        await self._db.write(q)


# ---------------------------------------------------------------------- helpers (worker thread)
def _write_orchestration(
    tx: Tx, spec: Orchestration, snapshots: dict[str, Any] | None, *, insert: bool
) -> None:
    from .orchestration import record_to_json

    key = (*spec.tenant_context.key(), spec.orchestration_id, spec.version)
    if insert:
        tx.execute(
            "INSERT INTO goal_orchestrations(org_id, workspace_id, deployment_key, orchestration_id, version, "
            "status, name, record, workflow_snapshots, created_at_ms, updated_at_ms, published_at_ms) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                *key,
                spec.status,
                spec.name,
                dumps(record_to_json(spec)),
                dumps(snapshots),
                spec.created_at_ms,
                spec.updated_at_ms,
                spec.published_at_ms,
            ),
        )
    else:
        tx.execute(
            "UPDATE goal_orchestrations SET status=?, name=?, record=?, workflow_snapshots=?, updated_at_ms=?, "
            "published_at_ms=? WHERE org_id=? AND workspace_id=? AND deployment_key=? AND orchestration_id=? "
            "AND version=?",
            (
                spec.status,
                spec.name,
                dumps(record_to_json(spec)),
                dumps(snapshots),
                spec.updated_at_ms,
                spec.published_at_ms,
                *key,
            ),
        )


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


__all__ = ["Commit", "GoalExists", "GoalRepository", "LedgerEntry", "StoredOrchestration"]
