"""What a coder run produces: reports and summaries, and memory.

* Reports and summaries (``triage-summary``, ``pr-review-evidence`` ...) are stored
  run artifacts; each belongs to one workflow mode (:data:`.workflows.ARTIFACT_MODES`).
  A summary also proposes its text as a **memory candidate**.
* Memory hits search memory for the run (its project tier and global), by default
  with the run's objective; candidates are promoted into the project's memory.
* the pull request of an ``issue_fix`` run: :mod:`.pull_requests`.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..errors import ValidationFailed
from .artifact_records import CoderArtifact, MemoryCandidate
from .artifact_repository import CoderArtifactRepository, MemoryCandidateRepository
from .errors import (
    CandidateNotFound,
    RunConflict,
    WorkflowMismatch,
)
from .records import CoderRun
from .runs import require_run, run_wire
from .workflows import ARTIFACT_MODES, SUMMARIES

if TYPE_CHECKING:
    from .service import CoderService

_SEQUENCE = itertools.count()
"""Orders artifacts written in the same millisecond (ids sort as they were written)."""


def _artifacts(svc: CoderService) -> CoderArtifactRepository:
    return CoderArtifactRepository(svc.engine.store)


def _candidates(svc: CoderService) -> MemoryCandidateRepository:
    return MemoryCandidateRepository(svc.engine.store)


async def _add_artifact(
    svc: CoderService, run: CoderRun, artifact_type: str, payload: dict[str, Any]
) -> CoderArtifact:
    now = svc.engine.clock.now_ms()
    artifact_id = f"artifact-{now:013x}{next(_SEQUENCE) % 0x10000:04x}-{uuid.uuid4().hex[:8]}"
    step = next((s for s in reversed(run.steps) if s.status != "pending"), None)
    artifact = CoderArtifact(
        id=artifact_id,
        coder_run_id=run.coder_run_id,
        artifact_type=artifact_type,
        ts_ms=now,
        path=f"coder/{run.coder_run_id}/{artifact_type}/{artifact_id}.json",
        payload=payload,
        step_id=step.step_id if step is not None else None,
    )
    await _artifacts(svc).add(artifact)
    svc.engine.events.publish(
        "coder.run.artifact_added",
        {"coder_run_id": run.coder_run_id, "artifact_id": artifact_id, "type": artifact_type},
        topic="coder",
    )
    return artifact


def _summary_text(payload: Mapping[str, Any]) -> str:
    for key in ("summary", "recommendation", "text", "notes", "conclusion"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return json.dumps(payload, sort_keys=True)[:2000]


async def add_report(
    svc: CoderService, coder_run_id: str, artifact_type: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    run = await require_run(svc, coder_run_id)
    mode = ARTIFACT_MODES[artifact_type]
    if run.workflow != mode:
        raise WorkflowMismatch(
            f"`{artifact_type}` belongs to {mode} runs; this run is {run.workflow}",
            workflow_mode=run.workflow,
        )
    artifact = await _add_artifact(svc, run, artifact_type, dict(body))
    reply: dict[str, Any] = {
        "ok": True,
        "coder_run": run_wire(run),
        "artifact": artifact.to_wire(),
    }
    if artifact_type in SUMMARIES:
        candidate = await _new_candidate(
            svc,
            run,
            kind=artifact_type.replace("_summary", "_memory"),
            summary=_summary_text(body),
            payload=dict(body),
        )
        reply["generated_candidates"] = [_candidate_wire(candidate, None)]
    return reply


async def list_artifacts(svc: CoderService, coder_run_id: str) -> dict[str, Any]:
    await require_run(svc, coder_run_id)
    found = [a.to_wire() for a in await _artifacts(svc).of_run(coder_run_id)]
    return {"coder_run_id": coder_run_id, "artifacts": found, "count": len(found)}


# ---------------------------------------------------------------------- memory
async def memory_hits(
    svc: CoderService, coder_run_id: str, *, query: str | None, limit: int | None
) -> dict[str, Any]:
    run = await require_run(svc, coder_run_id)
    query = (query or "").strip() or run.objective
    memory = svc.engine.memory
    if memory is None:
        return {
            "coder_run_id": coder_run_id,
            "query": query,
            "hits": [],
            "count": 0,
            "status": "unavailable",
            "reason": "memory is not enabled",
        }
    from ..memory import SearchRequest

    found = await memory.search(
        SearchRequest(query=query, limit=max(1, min(limit or 8, 50)), project_id=run.project_id)
    )
    hits = found.get("results", [])
    return {"coder_run_id": coder_run_id, "query": query, "hits": hits, "count": len(hits)}


async def _new_candidate(
    svc: CoderService, run: CoderRun, *, kind: str, summary: str, payload: dict[str, Any]
) -> MemoryCandidate:
    artifact = await _add_artifact(
        svc, run, "memory_candidate", {"kind": kind, "summary": summary, "payload": payload}
    )
    now = svc.engine.clock.now_ms()
    candidate = MemoryCandidate(
        candidate_id=f"memcand-{uuid.uuid4().hex[:16]}",
        coder_run_id=run.coder_run_id,
        kind=kind,
        summary=summary,
        payload=payload,
        artifact_id=artifact.id,
        created_at_ms=now,
        updated_at_ms=now,
    )
    return await _candidates(svc).put(candidate)


def _candidate_wire(candidate: MemoryCandidate, artifact: CoderArtifact | None) -> dict[str, Any]:
    return {
        "candidate_id": candidate.candidate_id,
        "coder_run_id": candidate.coder_run_id,
        "kind": candidate.kind,
        "summary": candidate.summary,
        "payload": candidate.payload,
        "status": candidate.status,
        "memory_id": candidate.memory_id,
        "artifact": artifact.to_wire() if artifact is not None else None,
        "created_at_ms": candidate.created_at_ms,
        "promoted_at_ms": candidate.promoted_at_ms,
    }


async def list_candidates(svc: CoderService, coder_run_id: str) -> dict[str, Any]:
    await require_run(svc, coder_run_id)
    artifacts = {a.id: a for a in await _artifacts(svc).of_run(coder_run_id)}
    found = [
        _candidate_wire(c, artifacts.get(c.artifact_id))
        for c in await _candidates(svc).of_run(coder_run_id)
    ]
    return {"coder_run_id": coder_run_id, "candidates": found, "count": len(found)}


async def create_candidate(
    svc: CoderService, coder_run_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    run = await require_run(svc, coder_run_id)
    kind = body.get("kind")
    if not isinstance(kind, str) or not kind.strip():
        raise ValidationFailed("`kind` is required", field="kind")
    payload = body.get("payload") if isinstance(body.get("payload"), dict) else {}
    assert isinstance(payload, dict)
    summary = body.get("summary")
    text = summary.strip() if isinstance(summary, str) and summary.strip() else None
    candidate = await _new_candidate(
        svc, run, kind=kind.strip(), summary=text or _summary_text(payload), payload=payload
    )
    artifacts = {a.id: a for a in await _artifacts(svc).of_run(coder_run_id)}
    wire = _candidate_wire(candidate, artifacts.get(candidate.artifact_id))
    return {"ok": True, "candidate_id": candidate.candidate_id, "candidate": wire}


async def promote_candidate(
    svc: CoderService, coder_run_id: str, candidate_id: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    run = await require_run(svc, coder_run_id)
    async with svc.serial.turn(("candidate", candidate_id)):
        candidate = await _candidates(svc).get(candidate_id)
        if candidate is None or candidate.coder_run_id != coder_run_id:
            raise CandidateNotFound(candidate_id=candidate_id)
        if candidate.status == "promoted":
            return {
                "ok": True,
                "promoted": True,
                "deduped": True,
                "memory_id": candidate.memory_id,
                "candidate": _candidate_wire(candidate, None),
            }
        memory = svc.engine.memory
        if memory is None:
            raise RunConflict("memory is not enabled: the candidate cannot be promoted")
        from ..memory import PutRequest

        to_tier = body.get("to_tier") if body.get("to_tier") in ("project", "global") else "project"
        stored = await memory.put(
            PutRequest(
                text=candidate.summary,
                tier=str(to_tier),
                project_id=run.project_id if to_tier == "project" else None,
                kind="note",
                source="coder",
                tags=["coder", candidate.kind],
                metadata={
                    "coder_run_id": coder_run_id,
                    "candidate_id": candidate_id,
                    "candidate_kind": candidate.kind,
                    "workflow_mode": run.workflow,
                },
            )
        )
        now = svc.engine.clock.now_ms()
        candidate = attrs.evolve(
            candidate,
            status="promoted",
            memory_id=stored.get("id"),
            promoted_at_ms=now,
            updated_at_ms=now,
        )
        await _candidates(svc).put(candidate)
    return {
        "ok": True,
        "promoted": True,
        "memory_id": candidate.memory_id,
        "to_tier": to_tier,
        "candidate": _candidate_wire(candidate, None),
    }


__all__ = [
    "add_report",
    "create_candidate",
    "list_artifacts",
    "list_candidates",
    "memory_hits",
    "promote_candidate",
]
