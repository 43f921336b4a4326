"""Promotion copies a record into a wider tier, scrubbed; demotion hides it from search.

A governed promotion names its partition, may require a review, and is bounded
by its capability's promote targets; a simple one moves a record one tier up
(a session record without a project skips to global). Restricted records and
records the scrubber blocks are never copied; the refusal is audited.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..errors import ValidationFailed
from .factory import new_audit
from .governance import (
    DEFAULT_CAPABILITY,
    MemoryConflict,
    MemoryForbidden,
    MemoryNotFound,
    check_context,
    require_tier,
    storage_tier,
)
from .records import MemoryRecord, NewRecord
from .requests import DemoteRequest, GovernedPromoteRequest, PromoteRequest
from .scrub import ScrubReport, scrub_text
from .tiers import WIDER_TIER, Tier, check_tier

if TYPE_CHECKING:
    from .service import MemoryService

_TIER_RANK = {"session": 0, "project": 1, "global": 2}


@attrs.frozen
class _Target:
    """Where a checked promotion goes, and what it records about itself."""

    record: MemoryRecord
    to_tier: Tier
    project_id: str | None
    run_id: str | None
    reason: str | None
    review: dict[str, Any] | None


async def promote(
    memory: MemoryService, request: PromoteRequest | GovernedPromoteRequest
) -> dict[str, Any]:
    now = memory.clock.now_ms()
    if isinstance(request, GovernedPromoteRequest):
        target = await _governed_target(memory, request, now)
    else:
        target = await _simple_target(memory, request, now)
    record, to_tier, project_id = target.record, target.to_tier, target.project_id
    if _TIER_RANK[to_tier] <= _TIER_RANK[record.tier]:
        raise MemoryConflict(
            f"cannot promote a `{record.tier}` record to `{to_tier}`", field="to_tier"
        )
    if to_tier == "project" and not project_id:
        raise ValidationFailed(
            "promoting to the project tier requires project_id", field="project_id"
        )
    if record.classification == "restricted":
        report = ScrubReport("blocked", 0, "restricted classification")
        content = record.content
    else:
        content, report = scrub_text(record.content)
    body: dict[str, Any] = {
        "promoted": False,
        "to_tier": to_tier,
        "scrub_report": report.to_wire(),
    }
    if report.status == "blocked":
        audit = new_audit(
            "promote_blocked",
            now_ms=now,
            record=record,
            run_id=target.run_id,
            detail={"to_tier": to_tier, "reason": report.block_reason},
        )
        await memory.store.audit.append(audit)
        body["audit_id"] = audit.id
        return body
    promoted = await memory.store_record(
        NewRecord(
            content=content,
            tier=to_tier,
            project_id=project_id if to_tier == "project" else None,
            run_id=target.run_id or record.run_id,
            org_id=record.org_id,
            workspace_id=record.workspace_id,
            user_id=record.user_id,
            kind=record.kind,
            source_type="promotion",
            classification=record.classification,
            tags=record.tags,
            metadata=record.metadata,
            artifact_refs=record.artifact_refs,
            provenance={
                "promoted_from": record.id,
                "from_tier": record.tier,
                "reason": target.reason,
                "review": target.review,
                "scrub": report.to_wire(),
            },
        ),
        action="promote",
        actor="promotion",
    )
    body.update(
        promoted=True,
        new_memory_id=promoted.id,
        audit_id=promoted.provenance.get("audit_id"),
        memory=promoted.to_wire(),
    )
    return body


async def _governed_target(
    memory: MemoryService, request: GovernedPromoteRequest, now: int
) -> _Target:
    partition = request.partition
    capability = request.capability or DEFAULT_CAPABILITY
    check_context(
        capability,
        run_id=request.run_id,
        org_id=partition.org_id,
        workspace_id=partition.workspace_id,
        project_id=partition.project_id,
        now_ms=now,
    )
    to_tier = storage_tier(request.to_tier, field="to_tier")
    require_tier(capability.memory.promote_targets, request.to_tier, action="promoting into")
    review_needed = request.review.required or capability.memory.require_review_for_promote
    if review_needed and not (request.review.reviewer_id or request.review.approval_id):
        raise MemoryForbidden(
            "promotion requires a review (review.reviewer_id or review.approval_id)",
            field="review",
        )
    record = await memory.require(request.source_memory_id, field="source_memory_id")
    if (
        record.org_id != partition.org_id
        or record.workspace_id != partition.workspace_id
        or (record.project_id is not None and record.project_id != partition.project_id)
    ):
        raise MemoryNotFound(memory_id=request.source_memory_id)
    if request.from_tier is not None and request.from_tier != record.tier:
        raise MemoryConflict(
            f"the record is in tier `{record.tier}`, not `{request.from_tier}`",
            field="from_tier",
        )
    return _Target(
        record=record,
        to_tier=to_tier,
        project_id=partition.project_id,
        run_id=request.run_id,
        reason=request.reason,
        review=attrs.asdict(request.review),
    )


async def _simple_target(memory: MemoryService, request: PromoteRequest, now: int) -> _Target:
    record = await memory.require(request.id, field="id")
    project_id = request.project_id or record.project_id
    to_tier: Tier
    if request.to_tier is not None:
        to_tier = check_tier(request.to_tier, field="to_tier")
    else:
        wider = WIDER_TIER.get(record.tier)
        if wider is None:
            raise MemoryConflict("the record is already in the global tier", field="id")
        to_tier = "global" if wider == "project" and not project_id else wider
    if request.capability is not None:
        check_context(request.capability, run_id=request.run_id, project_id=project_id, now_ms=now)
        require_tier(request.capability.memory.promote_targets, to_tier, action="promoting into")
    return _Target(
        record=record,
        to_tier=to_tier,
        project_id=project_id,
        run_id=request.run_id,
        reason=request.reason,
        review=None,
    )


async def demote(memory: MemoryService, request: DemoteRequest) -> dict[str, Any]:
    now = memory.clock.now_ms()
    audit = new_audit(
        "demote", now_ms=now, run_id=request.run_id, detail={"reason": request.reason}
    )
    record = await memory.store.records.set_demoted(
        request.id, demoted=True, now_ms=now, audit=attrs.evolve(audit, record_id=request.id)
    )
    if record is None:
        raise MemoryNotFound(memory_id=request.id)
    memory.announce("memory.updated", record, action="demote", visibility="private")
    return {"ok": True, "id": record.id, "audit_id": audit.id}


__all__ = ["demote", "promote"]
