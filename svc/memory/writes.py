"""``put``: a governed or simple put request turned into one stored record.

A governed put names its partition and carries (or defaults) a capability; a
simple put names a session, project or run and lets the tier follow from them.
Both are checked here, then written by :meth:`MemoryService.store_record`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ValidationFailed
from .governance import (
    DEFAULT_CAPABILITY,
    GOVERNED_KINDS,
    check_classification,
    check_context,
    require_tier,
    storage_tier,
)
from .records import NewRecord
from .requests import GovernedPutRequest, PutRequest, check_content, check_tags
from .tiers import Tier, check_tier

if TYPE_CHECKING:
    from .service import MemoryService


async def put(memory: MemoryService, request: PutRequest | GovernedPutRequest) -> dict[str, Any]:
    if isinstance(request, GovernedPutRequest):
        new = await governed_record(memory, request)
    else:
        new = await simple_record(memory, request)
    record = await memory.store_record(new, action="put")
    partition_key = (
        request.partition.key if isinstance(request, GovernedPutRequest) else record.partition_key
    )
    return {
        "ok": True,
        "id": record.id,
        "stored": True,
        "tier": record.tier,
        "partition_key": partition_key,
        "audit_id": record.provenance.get("audit_id"),
        "memory": record.to_wire(),
    }


async def governed_record(memory: MemoryService, request: GovernedPutRequest) -> NewRecord:
    partition = request.partition
    tier = storage_tier(partition.tier, field="partition.tier")
    if request.kind not in GOVERNED_KINDS:
        raise ValidationFailed(f"`kind` must be one of {', '.join(GOVERNED_KINDS)}", field="kind")
    check_classification(request.classification)
    capability = request.capability or DEFAULT_CAPABILITY
    check_context(
        capability,
        run_id=request.run_id,
        org_id=partition.org_id,
        workspace_id=partition.workspace_id,
        project_id=partition.project_id,
        now_ms=memory.clock.now_ms(),
    )
    require_tier(capability.memory.write_tiers, partition.tier, action="writing to")
    content = check_content(request.content, field="content")
    session_id = None
    if tier == "session":
        session_id = request.session_id or await memory.session_of_run(request.run_id)
    return NewRecord(
        content=content,
        tier=tier,
        project_id=partition.project_id if tier != "global" else None,
        session_id=session_id,
        run_id=request.run_id,
        org_id=partition.org_id,
        workspace_id=partition.workspace_id,
        kind=request.kind,
        source_type="run",
        classification=request.classification,
        tags=check_tags(request.tags),
        metadata=request.metadata,
        artifact_refs=tuple(request.artifact_refs),
        visibility="private" if request.private else "shared",
        provenance={"capability_subject": capability.subject},
    )


async def simple_record(memory: MemoryService, request: PutRequest) -> NewRecord:
    content = check_content(request.text, field="text")
    session_id = request.session_id or await memory.session_of_run(request.run_id)
    project_id = request.project_id or await memory.project_of_session(session_id)
    tier: Tier
    if request.tier is not None:
        tier = check_tier(request.tier, field="tier")
    else:
        tier = "session" if session_id else "project" if project_id else "global"
    if tier == "session" and not session_id:
        raise ValidationFailed("tier=session requires session_id", field="session_id")
    if tier == "project" and not project_id:
        raise ValidationFailed("tier=project requires project_id", field="project_id")
    classification = request.classification or "internal"
    check_classification(classification)
    if request.capability is not None:
        check_context(
            request.capability,
            run_id=request.run_id,
            project_id=project_id,
            now_ms=memory.clock.now_ms(),
        )
        require_tier(request.capability.memory.write_tiers, tier, action="writing to")
    kind = (request.kind or "note").strip()
    if not kind or len(kind) > 64:
        raise ValidationFailed("`kind` must be 1 to 64 characters", field="kind")
    return NewRecord(
        content=content,
        tier=tier,
        project_id=project_id if tier != "global" else None,
        session_id=session_id if tier == "session" else None,
        run_id=request.run_id,
        kind=kind,
        source_type=(request.source or "user").strip() or "user",
        classification=classification,
        tags=check_tags(request.tags),
        metadata=request.metadata,
        artifact_refs=tuple(request.artifact_refs),
        visibility="private" if request.private else "shared",
    )


__all__ = ["governed_record", "put", "simple_record"]
