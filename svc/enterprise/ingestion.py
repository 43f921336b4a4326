"""Ingesting a source binding into memory: preflight, import, reindex, jobs.

An import reads the binding's folder (``local_directory`` provider), holds back
the files that need review as **quarantines**, and hands the rest to the
memory importer at project tier (the binding's ``resource_ref.project_id``,
else its ``resource_id``), carrying the binding's tenant and data class. It
syncs deletions, so a file that vanished, or that is now held for review, loses
its earlier records. Files are remembered by the importer (size, time, hash), so
a repeated import reads only what changed.

A quarantined file is imported once a reviewer releases it (and only while its
content is the content reviewed); a file whose secret was removed is imported
at the next import and its quarantine closes itself as ``reindexed``.

One import per binding at a time (the binding's serial turn). Progress is
published on the ``enterprise`` topic as ``enterprise.ingestion.*`` events
carrying the job id (``GET /enterprise/events``).
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio

from .connectors import LOCAL_DIRECTORY, require_binding
from .errors import EnterpriseConflict, EnterpriseError
from .records import IngestionJob, Quarantine, SourceBinding

if TYPE_CHECKING:
    from ..memory import ImportProgress
    from .scan import ScannedFile
    from .service import EnterpriseService
    from .tenant import Caller

PREVIEW_ITEMS = 200
"""Files listed by a preflight (the counts cover all of them)."""


def quarantine_id(binding_id: str, path: str) -> str:
    digest = hashlib.sha256(f"{binding_id}\0{path}".encode()).hexdigest()
    return f"q-{digest[:24]}"


@attrs.frozen
class Refusal:
    code: str
    message: str

    def to_wire(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


async def refusals_of(
    svc: EnterpriseService, caller: Caller, binding: SourceBinding
) -> tuple[list[Refusal], Path | None]:
    """Why the binding cannot be imported now (empty: it can), and its folder."""
    refusals: list[Refusal] = []
    if binding.state != "enabled":
        refusals.append(
            Refusal("ENTERPRISE_SOURCE_BINDING_NOT_ENABLED", f"the binding is {binding.state}")
        )
    connector = await svc.connectors.get(caller.tenant.key, binding.connector_id)
    if connector is None:
        refusals.append(
            Refusal(
                "ENTERPRISE_CONNECTOR_NOT_FOUND",
                f"connector `{binding.connector_id}` does not exist",
            )
        )
    elif connector.state != "active":
        refusals.append(
            Refusal("ENTERPRISE_CONNECTOR_NOT_ACTIVE", f"the connector is {connector.state}")
        )
    if not binding.ingestion_policy.allow_indexing:
        refusals.append(
            Refusal("ENTERPRISE_INGESTION_INDEXING_DISABLED", "the policy disallows indexing")
        )
    if svc.engine.memory is None:
        refusals.append(Refusal("ENTERPRISE_MEMORY_UNAVAILABLE", "memory is not enabled"))
    root: Path | None = None
    if binding.source_type != LOCAL_DIRECTORY:
        refusals.append(
            Refusal(
                "ENTERPRISE_INGESTION_PROVIDER_UNAVAILABLE",
                f"live ingestion of `{binding.source_type}` sources is not available; "
                "use a local_directory binding",
            )
        )
    else:
        from .local_directory import resolve_root

        try:
            root = resolve_root(binding.native_source_id, svc.engine.settings)
        except EnterpriseError as exc:
            refusals.append(Refusal(exc.code, exc.message))
    return refusals, root


async def _scan(binding: SourceBinding, root: Path) -> list[ScannedFile]:
    from .scan import scan

    policy = binding.ingestion_policy
    return await trio.to_thread.run_sync(
        lambda: scan(root, require_review=policy.require_review, max_depth=policy.max_depth)
    )


def _plan(
    binding: SourceBinding, files: list[ScannedFile], known: dict[str, Quarantine]
) -> dict[str, list[ScannedFile]]:
    """Each file's fate: ``import``, ``quarantine`` (new or still pending), ``hold``
    (reviewed and deleted), ``refuse``."""
    plan: dict[str, list[ScannedFile]] = {"import": [], "quarantine": [], "hold": [], "refuse": []}
    for item in files:
        if item.refused:
            plan["refuse"].append(item)
            continue
        if not item.reasons:
            plan["import"].append(item)
            continue
        seen = known.get(quarantine_id(binding.binding_id, item.relative))
        same = seen is not None and seen.content_hash == item.content_hash
        if same and seen is not None and seen.disposition == "released":
            plan["import"].append(item)
        elif same and seen is not None and seen.disposition == "deleted":
            plan["hold"].append(item)
        else:
            plan["quarantine"].append(item)
    return plan


def _wire_plan(
    binding: SourceBinding, plan: dict[str, list[ScannedFile]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    imported = plan["import"]
    counts = {
        "discovered_files": sum(len(v) for v in plan.values()),
        "would_import": len(imported),
        "would_quarantine": len(plan["quarantine"]),
        "held_after_review": len(plan["hold"]),
        "refused": len(plan["refuse"]),
        "bytes": sum(f.size for f in imported),
    }
    items: list[dict[str, Any]] = []
    for action, found in plan.items():
        for item in found:
            entry: dict[str, Any] = {"path": item.relative, "size": item.size, "action": action}
            if item.reasons:
                entry["reasons"] = list(item.reasons)
            if item.detectors:
                entry["detectors"] = list(item.detectors)
            if item.refused:
                entry["refused"] = item.refused
            items.append(entry)
    items.sort(key=lambda e: e["path"])
    return counts, items[:PREVIEW_ITEMS]


async def preflight(svc: EnterpriseService, caller: Caller, binding_id: str) -> dict[str, Any]:
    """What an import would do now; writes nothing."""
    caller.require_read()
    binding = await require_binding(svc, caller, binding_id)
    refusals, root = await refusals_of(svc, caller, binding)
    counts: dict[str, Any] = {}
    items: list[dict[str, Any]] = []
    if root is not None:
        files = await _scan(binding, root)
        found = await svc.quarantines.all(caller.tenant.key, parent=binding.binding_id)
        known = {q.quarantine_id: q for q in found}
        counts, items = _wire_plan(binding, _plan(binding, files, known))
    return {
        **caller.base("enterprise source binding preflight"),
        "binding_id": binding.binding_id,
        "ready": not refusals,
        "root": str(root) if root is not None else None,
        "memory_target": _target(caller, binding),
        "data_classes": {binding.data_class: counts.get("would_import", 0)},
        "counts": counts,
        "items": items,
        "refusals": [r.to_wire() for r in refusals],
    }


def _target(caller: Caller, binding: SourceBinding) -> dict[str, Any]:
    return {
        "tier": "project",
        "project_id": binding.project_id,
        "org_id": caller.tenant.org_id,
        "workspace_id": caller.tenant.workspace_id,
        "classification": binding.data_class,
    }


async def start_import(
    svc: EnterpriseService,
    caller: Caller,
    binding_id: str,
    *,
    kind: str = "import",
    wait: bool = True,
) -> dict[str, Any]:
    """Import (or, with ``kind="reindex"``, rebuild) a binding's memory.

    With ``wait`` the reply is the finished job; otherwise the job is started
    in the engine's background and the reply is the running job (follow it on
    ``GET /enterprise/events``).
    """
    caller.require_admin()
    binding = await require_binding(svc, caller, binding_id)
    refusals, root = await refusals_of(svc, caller, binding)
    if refusals or root is None:
        raise EnterpriseConflict(
            refusals[0].message if refusals else "the binding cannot be imported",
            code=refusals[0].code if refusals else "ENTERPRISE_INGESTION_REFUSED",
            refusals=[r.to_wire() for r in refusals],
        )
    job = IngestionJob(
        job_id=f"job-{uuid.uuid4().hex[:20]}",
        binding_id=binding.binding_id,
        connector_id=binding.connector_id,
        kind=kind,
        started_at_ms=svc.now_ms(),
    )
    await svc.jobs.put(caller.tenant.key, job)
    if not wait:
        svc.engine.spawn_background(run_job, svc, caller, binding.binding_id, root, job)
        return {
            **caller.base("enterprise ingestion job started"),
            "job": job.to_wire(caller.tenant),
        }
    done = await run_job(svc, caller, binding.binding_id, root, job)
    return {**caller.base("enterprise ingestion job finished"), "job": done.to_wire(caller.tenant)}


async def run_job(
    svc: EnterpriseService, caller: Caller, binding_id: str, root: Path, job: IngestionJob
) -> IngestionJob:
    tenant = caller.tenant
    described = {
        "job_id": job.job_id,
        "binding_id": binding_id,
        "kind": job.kind,
        "org_id": tenant.org_id,
        "workspace_id": tenant.workspace_id,
    }
    svc.publish(caller, "enterprise.ingestion.started", described)
    try:
        async with svc.turn(caller, "binding", binding_id):
            binding = await require_binding(svc, caller, binding_id)
            counts = await _ingest(svc, caller, binding, root, job, described)
    except Exception as exc:
        # A failed job is recorded and announced; the caller (or the background
        # nursery's logger) still sees the error.
        message = exc.message if isinstance(exc, EnterpriseError) else str(exc)
        failed = attrs.evolve(job, state="failed", error=message, finished_at_ms=svc.now_ms())
        with trio.CancelScope(shield=True):
            # Shielded: a cancelled import must still leave its job marked failed.
            await svc.jobs.put(tenant.key, failed)
        svc.publish(caller, "enterprise.ingestion.failed", {**described, "error": message})
        raise
    finished = attrs.evolve(job, state="completed", counts=counts, finished_at_ms=svc.now_ms())
    await svc.jobs.put(tenant.key, finished)
    svc.publish(caller, "enterprise.ingestion.completed", {**described, "counts": counts})
    return finished


async def _ingest(
    svc: EnterpriseService,
    caller: Caller,
    binding: SourceBinding,
    root: Path,
    job: IngestionJob,
    described: dict[str, Any],
) -> dict[str, int]:
    from ..memory import ImportRequest
    from .binding_memory import forget_binding_memory, import_rescoped

    memory = svc.engine.memory
    tenant = caller.tenant
    if job.kind == "reindex":
        await forget_binding_memory(svc, caller, binding, root)
    files = await _scan(binding, root)
    decided = await svc.objects.all(tenant.key, parent=binding.binding_id)
    deleted = {o.path for o in decided if o.deleted}
    scoped = {o.path: o.data_class for o in decided if not o.deleted and o.data_class}
    everything = frozenset(item.relative for item in files)
    # Objects an operator deleted stay out (not even quarantined) until reindexed.
    files = [item for item in files if item.relative not in deleted]
    quarantines = await svc.quarantines.all(tenant.key, parent=binding.binding_id)
    known = {q.quarantine_id: q for q in quarantines}
    plan = _plan(binding, files, known)
    now = svc.now_ms()
    changed: list[Quarantine] = []
    for item in plan["quarantine"]:
        qid = quarantine_id(binding.binding_id, item.relative)
        seen = known.get(qid)
        if seen is not None and seen.disposition is None and seen.content_hash == item.content_hash:
            continue  # still pending, unchanged
        changed.append(
            Quarantine(
                quarantine_id=qid,
                binding_id=binding.binding_id,
                connector_id=binding.connector_id,
                path=item.relative,
                reasons=item.reasons,
                detectors=item.detectors,
                content_hash=item.content_hash,
                size=item.size,
                data_class=binding.data_class,
                created_at_ms=seen.created_at_ms if seen else now,
                updated_at_ms=now,
            )
        )
    clean = {f.relative for f in plan["import"] if not f.reasons}
    for q in quarantines:
        if q.disposition is None and q.path in clean:
            # The file no longer needs review (its secret was removed): it is imported
            # as it is now, and its quarantine closes.
            changed.append(
                attrs.evolve(q, disposition="reindexed", reviewed_by="ingestion", updated_at_ms=now)
            )
    await svc.quarantines.put_many(tenant.key, changed)
    held = {f.relative for key in ("quarantine", "hold", "refuse") for f in plan[key]}
    skip = frozenset(held | deleted | set(scoped))

    def progress(step: ImportProgress) -> None:
        svc.publish(
            caller,
            "enterprise.ingestion.progress",
            {**described, "done": step.done, "total": step.total},
        )

    summary = await memory.import_path(
        ImportRequest(
            path=root,
            format="directory",
            tier="project",
            project_id=binding.project_id,
            sync_deletes=True,
            source_binding_id=binding.binding_id,
            classification=binding.data_class,
            org_id=tenant.org_id,
            workspace_id=tenant.workspace_id,
            skip=skip,
        ),
        progress=progress,
    )

    summary = await import_rescoped(svc, caller, binding, root, everything, held, scoped, summary)
    pending = await svc.quarantines.count_in_state(tenant.key, "pending", parent=binding.binding_id)
    return {
        "discovered_files": len(files),
        "imported_files": summary.indexed_files,
        "unchanged_files": summary.skipped_files,
        "deleted_files": summary.deleted_files,
        "chunks_created": summary.chunks_created,
        "quarantined_files": len(plan["quarantine"]),
        "new_quarantines": sum(1 for q in changed if q.disposition is None),
        "pending_quarantines": pending,
        "held_after_review": len(plan["hold"]),
        "refused_files": len(plan["refuse"]),
        "errors": len(summary.errors),
    }


async def list_jobs(
    svc: EnterpriseService, caller: Caller, binding_id: str | None
) -> dict[str, Any]:
    jobs = await svc.jobs.all(caller.tenant.key, parent=binding_id)
    jobs.sort(key=lambda j: (j.started_at_ms, j.job_id), reverse=True)
    wire = [j.to_wire(caller.tenant) for j in jobs]
    return {**caller.base(), "ingestion_jobs": wire, "count": len(wire)}


__all__ = [
    "list_jobs",
    "preflight",
    "quarantine_id",
    "refusals_of",
    "run_job",
    "start_import",
]
