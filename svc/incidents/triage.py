"""Triage runs (reference §1.10.4 to §1.10.6): one automation v2 run per draft.

The run id is chosen and written on the draft *before* the run is created, and
``create_v2_run`` is idempotent on it: a restart between the two steps finds the id
on the draft and creates the same run, so nothing committed is lost or doubled. A
run past ``triage_timeout_ms`` is cancelled by the monitor's recovery and its draft
marked ``triage_timed_out``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .drafts import get_draft, get_incident
from .errors import bad_request, conflict
from .records import Draft

if TYPE_CHECKING:
    from .service import IncidentService

RUN_PREFIX = "automation-v2-incident-monitor-triage-"
AUTOMATION_KEY = "triage_automation_id"
SUMMARY_FIELDS = (
    "suggested_title",
    "what_happened",
    "why_it_likely_happened",
    "root_cause_confidence",
    "failure_type",
    "affected_components",
    "likely_files_to_edit",
    "expected_behavior",
    "steps_to_reproduce",
    "recommended_fix",
    "acceptance_criteria",
    "verification_steps",
    "risk_level",
    "notes",
)


TRIAGE_NODES: tuple[tuple[str, str], ...] = (
    (
        "inspect",
        "Inspect the reported failure (it is in the run context): say exactly what failed, "
        "where, and what the evidence shows. Read the workspace files it names if that helps.",
    ),
    (
        "research",
        "From the inspection, research why the failure likely happened: the code paths, "
        "configuration or inputs involved, and any earlier failure with the same signs.",
    ),
    (
        "validate",
        "Validate the likely cause against the evidence: what confirms it, what contradicts "
        "it, and the steps that would reproduce and verify it. One step per line.",
    ),
    (
        "propose_fix",
        "Propose the fix: the change to make, the files to edit, and how to tell it worked. "
        "Start with a one-line title for the issue.",
    ),
)
"""The reference's four triage steps (§1.10.4), each handed the outputs of the last."""

NODE_FIELDS = {
    "inspect": "what_happened",
    "research": "why_it_likely_happened",
    "validate": "validation",
    "propose_fix": "recommended_fix",
}
"""Which triage summary field each step's output becomes."""


def _spec(service: IncidentService) -> dict[str, Any]:
    agent: dict[str, Any] = {
        "agent_id": "triage",
        "display_name": "Incident triage",
        "tool_policy": {"allowlist": ["read", "glob", "grep"], "denylist": []},
        "mcp_policy": {"allowed_servers": []},
    }
    if service.config.model_policy:
        agent["model_policy"] = dict(service.config.model_policy)
    nodes = []
    previous: str | None = None
    for node_id, objective in TRIAGE_NODES:
        nodes.append(
            {
                "node_id": node_id,
                "agent_id": "triage",
                "objective": objective,
                "depends_on": [previous] if previous else [],
            }
        )
        previous = node_id
    return {
        "name": "incident-monitor-triage",
        "status": "active",
        "schedule": {"type": "manual", "timezone": "UTC", "misfire_policy": {"type": "run_once"}},
        "agents": [agent],
        "flow": {"nodes": nodes},
        "execution": {"max_parallel_agents": 1},
    }


def _node_ids(spec: Any) -> list[str]:
    flow = spec.get("flow") if isinstance(spec, Mapping) else None
    nodes = flow.get("nodes") if isinstance(flow, Mapping) else None
    return [str(n.get("node_id")) for n in nodes or [] if isinstance(n, Mapping)]


async def _automation_id(service: IncidentService) -> str:
    automations = service.engine.automations
    known = await service.config_repo.state(AUTOMATION_KEY)
    existing = await automations.get_v2(known) if known else None
    # An automation stored by an earlier version with other steps is left alone (its
    # runs keep their definition) and a new one with the current steps replaces it.
    if existing is not None and _node_ids(existing.spec) == [n for n, _ in TRIAGE_NODES]:
        return existing.automation_id
    created = await automations.create_v2(_spec(service))
    await service.config_repo.set_state(AUTOMATION_KEY, created.automation_id)
    return created.automation_id


async def start_triage(
    service: IncidentService, draft_id: str, *, manual: bool = False, bypass_approval: bool = False
) -> dict[str, Any]:
    if service.engine.automations is None:
        raise bad_request("TRIAGE_RUN_CREATE_FAILED", "automations are not enabled")
    async with service.serial.turn(draft_id):
        draft = await get_draft(service, draft_id)
        if draft.status == "denied":
            raise conflict(
                "TRIAGE_RUN_CREATE_FAILED", "a denied draft cannot be triaged", draft_id=draft_id
            )
        if (
            manual
            and not bypass_approval
            and draft.status == "approval_required"
            and service.config.require_approval_for_new_issues
        ):
            raise conflict(
                "TRIAGE_RUN_CREATE_FAILED", "the draft awaits approval", draft_id=draft_id
            )
        run_id = draft.text("triage_run_id")
        existing = await service.engine.automations.get_v2_run(run_id) if run_id else None
        deduped = existing is not None and not existing.terminal
        if not deduped:
            run_id = f"{RUN_PREFIX}{uuid.uuid4().hex}"
            now = service.now_ms()
            timeout = service.config.triage_timeout_ms
            # Committed before the run exists: a restart re-creates this same run id.
            summary = draft.get("triage_summary") or {}
            draft = draft.evolve(
                # A new run starts clean: an earlier run's end state ("timed_out") would
                # make recovery skip it, and its summary would hide the new run's output.
                # An operator's own summary is kept.
                triage_status=None,
                triage_summary=summary if summary.get("source") == "operator" else None,
                triage_run_id=run_id,
                triage_started_at_ms=now,
                triage_deadline_at_ms=now + timeout if timeout else None,
                github_status="triage_queued",
                updated_at_ms=now,
            )
            await service.drafts.save_draft(draft)
        run = await ensure_run(service, draft)
    return {"ok": True, "draft": draft.to_wire(), "run": run, "deduped": deduped}


async def ensure_run(service: IncidentService, draft: Draft) -> dict[str, Any]:
    run_id = draft.text("triage_run_id")
    assert run_id is not None
    automations = service.engine.automations
    context = {
        "objective": f"Triage incident draft {draft.draft_id}",
        "draft_id": draft.draft_id,
        "title": draft.text("title"),
        "detail": (draft.text("detail") or "")[:8000],
        "fingerprint": draft.fingerprint,
        "risk_level": draft.get("risk_level"),
    }
    run = await automations.create_v2_run(
        await _automation_id(service),
        run_id=run_id,
        trigger_type="manual",
        trigger_reason="incident_monitor_triage",
        context=context,
    )
    return run.to_wire()


async def collect(service: IncidentService, draft: Draft) -> Draft:
    """Fold a finished triage run's output into the draft as its triage summary."""
    run_id = draft.text("triage_run_id")
    if not run_id or draft.get("triage_summary"):
        return draft
    run = await service.engine.automations.get_v2_run(run_id)
    if run is None or not run.terminal:
        return draft
    if run.status != "completed":
        return draft.evolve(github_status="triage_failed", triage_status=run.status)
    from .redaction import redact_text

    summary: dict[str, Any] = {"source": "triage_run", "run_id": run_id, "nodes": {}}
    for node_id, text in run.node_outputs.items():
        clean = redact_text(text, "default")[:8000]
        summary["nodes"][node_id] = clean
        field = NODE_FIELDS.get(node_id, "what_happened")
        summary[field] = f"{summary[field]}\n\n{clean}" if field in summary else clean
    if summary.get("validation"):
        lines = [line.strip(" -*\t") for line in summary["validation"].splitlines()]
        summary["verification_steps"] = [line for line in lines if line][:10]
    title = next(iter(str(summary.get("recommended_fix") or "").strip().splitlines()), "")
    if title.strip("# ").strip():
        summary["suggested_title"] = title.strip("# ").strip()[:200]
    return draft.evolve(
        triage_summary=summary,
        triage_status="completed",
        github_status="triage_summary_ready",
        updated_at_ms=service.now_ms(),
    )


async def triage_summary(service: IncidentService, draft_id: str, body: Any) -> dict[str, Any]:
    async with service.serial.turn(draft_id):
        draft = await get_draft(service, draft_id)
        if not draft.text("triage_run_id"):
            raise conflict(
                "TRIAGE_SUMMARY_REQUIRES_RUN", "the draft has no triage run", draft_id=draft_id
            )
        given = {
            k: v
            for k, v in (body.items() if isinstance(body, Mapping) else [])
            if k in SUMMARY_FIELDS and v not in (None, "", [])
        }
        if given:
            from .redaction import redact_value

            draft = draft.evolve(
                triage_summary={**redact_value(given), "source": "operator"},
                github_status="triage_summary_ready",
                updated_at_ms=service.now_ms(),
            )
        else:
            draft = await collect(service, draft)
            if not draft.get("triage_summary"):
                raise bad_request(
                    "TRIAGE_SYNTHESIS_FAILED", "the triage run has no output yet", draft_id=draft_id
                )
        await service.drafts.save_draft(draft)
        # the summary sharpens the remembered pattern (reference §1.10.5)
        pattern = await service.patterns.remember(draft, now_ms=service.now_ms())
    return {
        "ok": True,
        "draft": draft.to_wire(),
        "triage_summary": draft.get("triage_summary"),
        "failure_pattern_memory": pattern,
    }


async def issue_draft(service: IncidentService, draft_id: str) -> dict[str, Any]:
    async with service.serial.turn(draft_id):
        draft = await collect(service, await get_draft(service, draft_id))
        summary = draft.get("triage_summary") or {}
        sections = [
            ("What happened", "what_happened"),
            ("Why it likely happened", "why_it_likely_happened"),
            ("Validation", "validation"),
            ("Recommended fix", "recommended_fix"),
        ]
        parts = [f"## {label}\n{summary[key]}" for label, key in sections if summary.get(key)]
        parts.append(f"## Report\n{draft.text('detail') or ''}")
        parts.append(f"Fingerprint: `{draft.fingerprint}`")
        body = "\n\n".join(parts)
        issue = {"title": summary.get("suggested_title") or draft.text("title"), "body": body}
        draft = draft.evolve(
            issue_draft=issue, github_status="issue_draft_ready", updated_at_ms=service.now_ms()
        )
        await service.drafts.save_draft(draft)
    return {"ok": True, "draft": draft.to_wire(), "issue_draft": issue}


async def replay_incident(service: IncidentService, incident_id: str) -> dict[str, Any]:
    incident = await get_incident(service, incident_id)
    if not incident.draft_id:
        raise conflict("INCIDENT_NO_DRAFT", "the incident has no draft", incident_id=incident_id)
    body = await start_triage(service, incident.draft_id, manual=True, bypass_approval=True)
    return {**body, "incident": incident.to_wire()}


async def recover_timed_out(service: IncidentService) -> None:
    """Cancel triage runs past their deadline; re-create runs a restart left uncreated."""
    automations = service.engine.automations
    if automations is None:
        return
    now = service.now_ms()
    for draft in await service.drafts.drafts(limit=200):
        run_id = draft.text("triage_run_id")
        if not run_id or draft.get("triage_status") in ("completed", "timed_out", "failed"):
            continue
        run = await automations.get_v2_run(run_id)
        if run is None:
            await ensure_run(service, draft)  # the draft committed the id; the run was lost
            continue
        deadline = draft.get("triage_deadline_at_ms")
        if not run.terminal and deadline and now > deadline:
            await automations.cancel_v2_run(run_id, "triage deadline passed")
            updated = draft.evolve(
                triage_status="timed_out", github_status="triage_timed_out", updated_at_ms=now
            )
        elif run.terminal:
            updated = await collect(service, draft)
            if updated.get("triage_status") is None:
                updated = updated.evolve(triage_status=run.status)
        else:
            continue
        async with service.serial.turn(draft.draft_id):
            await service.drafts.save_draft(updated)
