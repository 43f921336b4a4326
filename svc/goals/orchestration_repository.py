"""Orchestration drafts and published versions (``goal_orchestrations``).

Version 0 of an orchestration id is its draft; published versions count up from 1
and are never changed. A draft is replaced by compare-and-swap on its
``updated_at_ms``; a publish checks the draft is still the one validated and
inserts the next version in the same transaction. Every method is one round trip to
the store and filters by tenant in SQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from ..store import IntegrityError, Store, Tx, dumps, loads
from .errors import DraftConcurrencyConflict, PublishedVersionConflict

# The orchestration record is imported where rows become records: start-up on a fresh
# store reads none (docs/architecture.md, "Start-up budget").

if TYPE_CHECKING:
    from .orchestration import Orchestration
    from .tenancy import TenantContext

_KEY = "org_id=? AND workspace_id=? AND deployment_key=? AND orchestration_id=?"


@attrs.frozen
class StoredOrchestration:
    spec: Orchestration
    snapshots: dict[str, Any] | None = None
    """Published versions: automation_id -> the frozen automation definition."""


def _stored_orchestration(row: tuple[Any, ...]) -> StoredOrchestration:
    from .orchestration import record_from_json

    return StoredOrchestration(record_from_json(loads(row[0])), loads(row[1]))


class OrchestrationRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def orchestration(
        self, tenant: TenantContext, orchestration_id: str, version: int
    ) -> StoredOrchestration | None:
        def q(tx: Tx) -> StoredOrchestration | None:
            row = tx.execute(
                f"SELECT record, workflow_snapshots FROM goal_orchestrations WHERE {_KEY} "
                "AND version=?",
                (*tenant.key(), orchestration_id, version),
            ).fetchone()
            return _stored_orchestration(row) if row else None

        return await self._db.read(q)

    async def latest_published(
        self, tenant: TenantContext, orchestration_id: str
    ) -> StoredOrchestration | None:
        def q(tx: Tx) -> StoredOrchestration | None:
            row = tx.execute(
                f"SELECT record, workflow_snapshots FROM goal_orchestrations WHERE {_KEY} "
                "AND version > 0 ORDER BY version DESC LIMIT 1",
                (*tenant.key(), orchestration_id),
            ).fetchone()
            return _stored_orchestration(row) if row else None

        return await self._db.read(q)

    async def insert_draft(self, spec: Orchestration) -> None:
        def q(tx: Tx) -> None:
            updated = _draft_updated_at(tx, spec.tenant_context, spec.orchestration_id)
            if updated is not None:
                raise DraftConcurrencyConflict(
                    f"draft {spec.orchestration_id!r} already exists; update it with PUT and send "
                    "expected_updated_at_ms",
                    updated_at_ms=updated,
                )
            _write_orchestration(tx, spec, None, insert=True)

        await self._db.write(q)

    async def replace_draft(self, spec: Orchestration, expected_updated_at_ms: int) -> None:
        """Compare-and-swap on the draft's ``updated_at_ms``."""

        def q(tx: Tx) -> None:
            updated = _draft_updated_at(tx, spec.tenant_context, spec.orchestration_id)
            if updated is None:
                raise DraftConcurrencyConflict("the draft no longer exists", updated_at_ms=None)
            if updated != expected_updated_at_ms:
                raise DraftConcurrencyConflict(
                    "orchestration draft was modified concurrently: stored updated_at_ms "
                    f"{updated}, expected {expected_updated_at_ms}",
                    updated_at_ms=updated,
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
        """Insert the next version (``build(version)``) if the draft is still the one validated."""

        def q(tx: Tx) -> Orchestration:
            updated = _draft_updated_at(tx, tenant, orchestration_id)
            if updated is None or updated != draft_updated_at_ms:
                raise DraftConcurrencyConflict(
                    "orchestration draft was modified while it was being published",
                    updated_at_ms=updated,
                )
            top = tx.execute(
                f"SELECT COALESCE(MAX(version), 0) FROM goal_orchestrations WHERE {_KEY}",
                (*tenant.key(), orchestration_id),
            ).scalar(0)
            spec = build(int(top) + 1)
            try:
                _write_orchestration(tx, spec, snapshots, insert=True)
            except IntegrityError:
                raise PublishedVersionConflict(
                    "a concurrent publish raced this one; retry"
                ) from None
            return spec

        return await self._db.write(q)

    async def summaries(self, tenant: TenantContext) -> list[dict[str, Any]]:
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
                    f"SELECT record FROM goal_orchestrations WHERE {_KEY} AND version > 0 "
                    "ORDER BY version",
                    (*tenant.key(), orchestration_id),
                )
            ]

        return await self._db.read(q)


# ---------------------------------------------------------------------- helpers (worker thread)
def _draft_updated_at(tx: Tx, tenant: TenantContext, orchestration_id: str) -> int | None:
    row = tx.execute(
        f"SELECT updated_at_ms FROM goal_orchestrations WHERE {_KEY} AND version=0",
        (*tenant.key(), orchestration_id),
    ).fetchone()
    return int(row[0]) if row else None


def _write_orchestration(
    tx: Tx, spec: Orchestration, snapshots: dict[str, Any] | None, *, insert: bool
) -> None:
    from .orchestration import record_to_json

    key = (*spec.tenant_context.key(), spec.orchestration_id, spec.version)
    if insert:
        tx.execute(
            "INSERT INTO goal_orchestrations(org_id, workspace_id, deployment_key, "
            "orchestration_id, version, status, name, record, workflow_snapshots, "
            "created_at_ms, updated_at_ms, published_at_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
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
            "UPDATE goal_orchestrations SET status=?, name=?, record=?, workflow_snapshots=?, "
            f"updated_at_ms=?, published_at_ms=? WHERE {_KEY} AND version=?",
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


__all__ = ["OrchestrationRepository", "StoredOrchestration"]
