"""Quarantine review and the connector impact report.

A review decides a pending quarantine once (``PATCH
/enterprise/ingestion-quarantines/{id}/review`` with ``decision``):

* ``release``: the file is safe to ingest as it is; the binding is imported
  at once, and the file with it (only while its content is the content reviewed);
* ``delete``: the file stays out of memory (until its content changes);
* ``reindex``: scan the file again now (after fixing it at the source); a
  file that still needs review comes back as a new pending quarantine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from . import fields as f
from .errors import EnterpriseConflict, EnterpriseNotFound

if TYPE_CHECKING:
    from .service import EnterpriseService
    from .tenant import Caller

DECISIONS = {"release": "released", "delete": "deleted", "reindex": "reindexed"}


async def list_quarantines(
    svc: EnterpriseService, caller: Caller, *, state: str | None, binding_id: str | None
) -> dict[str, Any]:
    found = await svc.quarantines.all(caller.tenant.key, parent=binding_id)
    if state is not None:
        found = [q for q in found if q.state == state]
    wire = [q.to_wire(caller.tenant) for q in found]
    return {**caller.base(), "quarantines": wire, "count": len(wire)}


async def review_quarantine(
    svc: EnterpriseService, caller: Caller, quarantine_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    quarantine_id = f.enterprise_id(quarantine_id, "quarantine_id")
    decision = f.choice(body, "decision", tuple(DECISIONS), "")
    notes = f.text(body, "notes")
    async with svc.turn(caller, "quarantine", quarantine_id):
        found = await svc.quarantines.get(caller.tenant.key, quarantine_id)
        if found is None:
            raise EnterpriseNotFound(
                f"quarantine `{quarantine_id}` does not exist",
                code="ENTERPRISE_QUARANTINE_NOT_FOUND",
            )
        if found.disposition is not None:
            raise EnterpriseConflict(
                f"quarantine `{quarantine_id}` was already reviewed ({found.disposition})",
                code="ENTERPRISE_QUARANTINE_ALREADY_REVIEWED",
            )
        now = svc.now_ms()
        reviewed = attrs.evolve(
            found,
            disposition=DECISIONS[decision],
            reviewed_by=caller.principal.actor_id or caller.principal.source,
            reviewed_at_ms=now,
            notes=notes,
            updated_at_ms=now,
        )
        await svc.quarantines.put(caller.tenant.key, reviewed)
    svc.publish(
        caller,
        "enterprise.quarantine.reviewed",
        {
            "quarantine_id": quarantine_id,
            "binding_id": found.binding_id,
            "disposition": reviewed.disposition,
            "org_id": caller.tenant.org_id,
            "workspace_id": caller.tenant.workspace_id,
        },
    )
    reply: dict[str, Any] = {
        **caller.base("enterprise ingestion quarantine reviewed"),
        "quarantine": reviewed.to_wire(caller.tenant),
    }
    if decision in ("release", "reindex"):
        from .ingestion import start_import

        job = await start_import(svc, caller, found.binding_id, kind=decision)
        reply["job"] = job["job"]
        after = await svc.quarantines.get(caller.tenant.key, quarantine_id)
        if after is not None:
            reply["quarantine"] = after.to_wire(caller.tenant)
    return reply


async def connector_impact(
    svc: EnterpriseService, caller: Caller, connector_id: str
) -> dict[str, Any]:
    """What a compromised or revoked connector reaches: its bindings, what they ingested,
    their jobs and quarantines, and what to do."""
    caller.require_read()
    from .connectors import require_connector

    connector = await require_connector(svc, caller, f.enterprise_id(connector_id, "connector_id"))
    tenant = caller.tenant.key
    bindings = await svc.bindings.all(tenant, parent=connector.connector_id)
    objects: list[dict[str, Any]] = []
    jobs: list[dict[str, Any]] = []
    quarantines: list[dict[str, Any]] = []
    window_start: int | None = None
    for binding in bindings:
        objects.extend(await _source_objects(svc, caller, binding))
        for job in await svc.jobs.all(tenant, parent=binding.binding_id):
            jobs.append(job.to_wire(caller.tenant))
            if window_start is None or job.started_at_ms < window_start:
                window_start = job.started_at_ms
        quarantines.extend(
            q.to_wire(caller.tenant)
            for q in await svc.quarantines.all(tenant, parent=binding.binding_id)
        )
    actions = ["pause the connector (PATCH state=paused) while the impact is reviewed"]
    if connector.credential_refs:
        actions.append("rotate every credential reference of the connector")
    if objects:
        actions.append("reindex or disable the affected source bindings")
    if any(q["state"] == "pending" for q in quarantines):
        actions.append("review the pending quarantines")
    return {
        **caller.base("enterprise connector impact report"),
        "connector": connector.to_wire(caller.tenant),
        "affected_bindings": [b.to_wire(caller.tenant) for b in bindings],
        "affected_source_objects": objects,
        "affected_ingestion_jobs": jobs,
        "affected_quarantines": quarantines,
        "data_classes": sorted({b.data_class for b in bindings}),
        "cache_invalidation_required": bool(objects),
        "compromise_window": {"from_ms": window_start, "to_ms": svc.now_ms()},
        "recommended_actions": actions,
    }


async def _source_objects(
    svc: EnterpriseService, caller: Caller, binding: Any
) -> list[dict[str, Any]]:
    """The files a binding's imports hold in memory (none when its folder is not readable)."""
    from .binding_memory import import_key_of
    from .errors import EnterpriseError
    from .local_directory import resolve_root

    if svc.engine.memory is None or binding.source_type != "local_directory":
        return []
    try:
        root = resolve_root(binding.native_source_id, svc.engine.settings)
    except EnterpriseError:
        return []
    known = await svc.engine.memory.store.imports.known_files(
        import_key_of(binding, root, caller.tenant)
    )
    return [
        {
            "binding_id": binding.binding_id,
            "path": source_key.split("/", 1)[1],
            "content_hash": k.content_hash,
            "size": k.size,
        }
        for source_key, k in sorted(known.items())
    ]


__all__ = ["DECISIONS", "connector_impact", "list_quarantines", "review_quarantine"]
