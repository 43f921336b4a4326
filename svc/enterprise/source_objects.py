"""One ingested source object of a binding: list, reindex, delete, re-scope.

An object is one file of a ``local_directory`` binding, named by a stable id
(:func:`object_id`, from the binding and its path). Decisions about an object
are stored (:class:`~.source_object_repository.SourceObject`) and honoured by
every later import of the binding:

* ``POST .../source-objects/{object_id}/reindex``: read the file again now (its
  records are replaced; a file that needs review becomes a pending quarantine);
  clears an earlier delete;
* ``DELETE .../source-objects/{object_id}``: its records leave memory, and the
  binding's imports leave it out until it is reindexed;
* ``PATCH .../source-objects/{object_id}/scope`` ``{data_class}``: its records are
  re-imported with that data class, and keep it at later imports.

Each change takes the binding's serial turn, as imports do.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from . import fields as f
from .errors import EnterpriseConflict, EnterpriseNotFound
from .source_object_repository import SourceObject

if TYPE_CHECKING:
    from .records import SourceBinding
    from .service import EnterpriseService
    from .tenant import Caller


def object_id(binding_id: str, path: str) -> str:
    digest = hashlib.sha256(f"{binding_id}\0{path}".encode()).hexdigest()
    return f"obj-{digest[:24]}"


async def _context(
    svc: EnterpriseService, caller: Caller, binding_id: str
) -> tuple[SourceBinding, Path, dict[str, Any]]:
    """The binding, its folder, and what its imports hold (source key -> known file)."""
    from .binding_memory import import_key_of
    from .connectors import require_binding
    from .local_directory import resolve_root

    binding = await require_binding(svc, caller, binding_id)
    if svc.engine.memory is None:
        raise EnterpriseConflict("memory is not enabled", code="ENTERPRISE_MEMORY_UNAVAILABLE")
    root = resolve_root(binding.native_source_id, svc.engine.settings)
    known = await svc.engine.memory.store.imports.known_files(
        import_key_of(binding, root, caller.tenant)
    )
    return binding, root, known


def _objects(
    binding: SourceBinding, known: dict[str, Any], decided: list[SourceObject]
) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for source_key, k in known.items():
        path = source_key.split("/", 1)[1]
        found[object_id(binding.binding_id, path)] = {
            "path": path,
            "content_hash": k.content_hash,
            "size": k.size,
            "indexed": True,
        }
    for record in decided:
        entry = found.setdefault(record.object_id, {"path": record.path, "indexed": False})
        entry["decision"] = record
    return found


def _wire(
    caller: Caller, binding: SourceBinding, oid: str, entry: dict[str, Any]
) -> dict[str, Any]:
    decision: SourceObject | None = entry.get("decision")
    state = decision.state if decision is not None else "active"
    return {
        "object_id": oid,
        "binding_id": binding.binding_id,
        "connector_id": binding.connector_id,
        "tenant_context": caller.tenant.to_wire(),
        "path": entry["path"],
        "content_hash": entry.get("content_hash"),
        "size": entry.get("size"),
        "indexed": entry["indexed"],
        "state": state,
        "data_class": (decision.data_class if decision else None) or binding.data_class,
        "updated_at_ms": decision.updated_at_ms if decision else None,
    }


async def list_objects(svc: EnterpriseService, caller: Caller, binding_id: str) -> dict[str, Any]:
    caller.require_read()
    binding, _, known = await _context(svc, caller, binding_id)
    decided = await svc.objects.all(caller.tenant.key, parent=binding.binding_id)
    found = _objects(binding, known, decided)
    wire = [
        _wire(caller, binding, oid, e)
        for oid, e in sorted(found.items(), key=lambda i: i[1]["path"])
    ]
    return {**caller.base(), "source_objects": wire, "count": len(wire)}


async def _require_object(
    svc: EnterpriseService, caller: Caller, binding_id: str, oid: str
) -> tuple[SourceBinding, Path, dict[str, Any], str, SourceObject | None]:
    binding, root, known = await _context(svc, caller, binding_id)
    oid = f.enterprise_id(oid, "object_id")
    decided = await svc.objects.all(caller.tenant.key, parent=binding.binding_id)
    entry = _objects(binding, known, decided).get(oid)
    if entry is None:
        # A file of the folder that no import holds yet is an object too.
        from .ingestion import _scan

        present = [s.relative for s in await _scan(binding, root)]
        path = next((p for p in present if object_id(binding.binding_id, p) == oid), None)
        if path is None:
            raise EnterpriseNotFound(
                f"source object `{oid}` does not exist in binding `{binding.binding_id}`",
                code="ENTERPRISE_SOURCE_OBJECT_NOT_FOUND",
            )
        entry = {"path": path, "indexed": False}
    return binding, root, known, entry["path"], entry.get("decision")


async def _reimport(
    svc: EnterpriseService,
    caller: Caller,
    binding: SourceBinding,
    root: Path,
    path: str,
    data_class: str,
) -> dict[str, Any]:
    """Forget the object's records and import it again as it is now (or quarantine it)."""
    from ..memory import ImportRequest
    from .binding_memory import import_key_of
    from .ingestion import _scan, quarantine_id
    from .records import Quarantine

    tenant = caller.tenant
    key = import_key_of(binding, root, tenant)
    imports = svc.engine.memory.store.imports
    forgotten = await imports.forget([f"{key}/{path}"])
    files = await _scan(binding, root)
    item = next((s for s in files if s.relative == path), None)
    if item is None:
        return {"forgotten_records": forgotten, "imported": False, "reason": "file_missing"}
    if item.refused:
        return {"forgotten_records": forgotten, "imported": False, "reason": item.refused}
    if item.reasons:
        qid = quarantine_id(binding.binding_id, path)
        seen = await svc.quarantines.get(tenant.key, qid)
        released = (
            seen is not None
            and seen.disposition == "released"
            and seen.content_hash == item.content_hash
        )
        if not released:
            now = svc.now_ms()
            await svc.quarantines.put(
                tenant.key,
                Quarantine(
                    quarantine_id=qid,
                    binding_id=binding.binding_id,
                    connector_id=binding.connector_id,
                    path=path,
                    reasons=item.reasons,
                    detectors=item.detectors,
                    content_hash=item.content_hash,
                    size=item.size,
                    data_class=data_class,
                    created_at_ms=seen.created_at_ms if seen else now,
                    updated_at_ms=now,
                ),
            )
            return {"forgotten_records": forgotten, "imported": False, "quarantine_id": qid}
    summary = await svc.engine.memory.import_path(
        ImportRequest(
            path=root,
            format="directory",
            tier="project",
            project_id=binding.project_id,
            sync_deletes=False,
            source_binding_id=binding.binding_id,
            classification=data_class,
            org_id=tenant.org_id,
            workspace_id=tenant.workspace_id,
            skip=frozenset(s.relative for s in files if s.relative != path),
        )
    )
    return {
        "forgotten_records": forgotten,
        "imported": summary.indexed_files == 1,
        "chunks_created": summary.chunks_created,
    }


async def _decide(
    svc: EnterpriseService,
    caller: Caller,
    binding: SourceBinding,
    path: str,
    previous: SourceObject | None,
    **changes: Any,
) -> SourceObject:
    now = svc.now_ms()
    base = previous or SourceObject(
        object_id=object_id(binding.binding_id, path),
        binding_id=binding.binding_id,
        path=path,
        created_at_ms=now,
    )
    record = attrs.evolve(
        base,
        updated_by=caller.principal.actor_id or caller.principal.source,
        updated_at_ms=now,
        **changes,
    )
    return await svc.objects.put(caller.tenant.key, record)


async def _change(
    svc: EnterpriseService,
    caller: Caller,
    binding_id: str,
    oid: str,
    action: str,
    data_class: str | None = None,
) -> dict[str, Any]:
    caller.require_admin()
    binding_id = f.enterprise_id(binding_id, "binding_id")
    async with svc.turn(caller, "binding", binding_id):
        binding, root, _, path, previous = await _require_object(svc, caller, binding_id, oid)
        outcome: dict[str, Any]
        if action == "delete":
            from .binding_memory import import_key_of

            key = import_key_of(binding, root, caller.tenant)
            forgotten = await svc.engine.memory.store.imports.forget([f"{key}/{path}"])
            record = await _decide(svc, caller, binding, path, previous, deleted=True)
            outcome = {"forgotten_records": forgotten, "imported": False}
        else:
            keep = previous.data_class if previous is not None else None
            scoped = data_class if action == "scope" else keep
            record = await _decide(
                svc, caller, binding, path, previous, deleted=False, data_class=scoped
            )
            outcome = await _reimport(
                svc, caller, binding, root, path, scoped or binding.data_class
            )
    svc.publish(
        caller,
        f"enterprise.source_object.{action}",
        {"binding_id": binding.binding_id, "object_id": record.object_id, "path": path},
    )
    known_after = await _context(svc, caller, binding.binding_id)
    entry = _objects(binding, known_after[2], [record]).get(
        record.object_id, {"path": path, "indexed": False}
    )
    message = {
        "reindex": "enterprise source object reindexed",
        "delete": "enterprise source object deleted",
        "scope": "enterprise source object re-scoped",
    }[action]
    return {
        **caller.base(message),
        "source_object": _wire(caller, binding, record.object_id, {**entry, "decision": record}),
        "outcome": outcome,
    }


async def reindex_object(
    svc: EnterpriseService, caller: Caller, binding_id: str, oid: str
) -> dict[str, Any]:
    return await _change(svc, caller, binding_id, oid, "reindex")


async def delete_object(
    svc: EnterpriseService, caller: Caller, binding_id: str, oid: str
) -> dict[str, Any]:
    return await _change(svc, caller, binding_id, oid, "delete")


async def scope_object(
    svc: EnterpriseService, caller: Caller, binding_id: str, oid: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_admin()
    return await _change(
        svc, caller, binding_id, oid, "scope", f.data_class(body.get("data_class"))
    )


__all__ = ["delete_object", "list_objects", "object_id", "reindex_object", "scope_object"]
