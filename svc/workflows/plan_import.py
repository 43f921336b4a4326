"""Importing a plan bundle: check it, sanitize it for this workspace, turn it into a draft plan.

An imported bundle never becomes runnable by itself. The import preview
re-roots the package here (new plan id derived from the bundle digest, owner,
output roots), drops the sender's connector bindings, recomputes credential
envelopes, and *stages* the bundle's schedule: the draft plan it yields is
manual, and the staged schedule only takes effect when the plan is applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .plan_normalization import clip, normalize_prompt, slug
from .plan_package import (
    BUNDLE_VERSION,
    IMPORTABLE_LIFECYCLES,
    canonical_json,
    credential_envelopes,
    digest,
    output_roots,
    scope_snapshot,
)
from .plan_package_replay import replay_report
from .plan_package_validation import package_issues, shape_issues
from .plans import PLANNER_VERSION, InputRef, PlanStep, WorkflowPlan
from .schedule import manual_schedule, normalize_schedule

_ROLE_BY_KIND = {
    "research": "researcher",
    "monitoring": "watcher",
    "drafting": "writer",
    "review": "reviewer",
    "execution": "worker",
    "sync": "worker",
    "reporting": "reporter",
    "publication": "publisher",
    "remediation": "repairer",
    "triage": "triager",
    "orchestration": "orchestrator",
}


def validate_bundle(bundle: Any) -> dict[str, Any]:
    """``import_validation``: ``compatible`` is true only when nothing blocks the import."""
    issues: list[dict[str, Any]] = []

    def block(code: str, path: str, message: str) -> None:
        issues.append(
            {"code": code, "severity": "error", "path": path, "message": message, "blocking": True}
        )

    if not isinstance(bundle, Mapping):
        block("invalid_bundle", "bundle", "the bundle must be an object")
        return replay_report(issues=issues)
    if str(bundle.get("bundle_version", "")).strip() != BUNDLE_VERSION:
        block(
            "unsupported_bundle_version",
            "bundle_version",
            f"only bundle version `{BUNDLE_VERSION}` is supported",
        )
    plan = bundle.get("plan")
    if not isinstance(plan, Mapping):
        block("missing_plan", "plan", "the bundle has no plan package")
        return replay_report(issues=issues)
    snapshot = bundle.get("scope_snapshot")
    if not isinstance(snapshot, Mapping):
        block(
            "missing_scope_snapshot",
            "scope_snapshot",
            "imported bundles must include their scope snapshot",
        )
    elif shape_issues(plan):
        pass  # a malformed package cannot be compared; package_issues below reports why
    elif canonical_json(snapshot) != canonical_json(scope_snapshot(plan)):
        block(
            "scope_snapshot_mismatch",
            "scope_snapshot",
            "the scope snapshot does not match the plan package: scope metadata was altered",
        )
    if plan.get("lifecycle_state") not in IMPORTABLE_LIFECYCLES:
        block(
            "import_requires_preview_lifecycle",
            "plan.lifecycle_state",
            "only draft or preview plan packages can be imported (never a live, runnable one)",
        )
    for issue in package_issues(plan):
        if issue["code"] == "invalid_lifecycle_state":
            continue  # reported above in import terms
        issues.append({**issue, "path": f"plan.{issue['path']}"})
    return replay_report(issues=issues, previous=plan)


@attrs.frozen
class ImportPreview:
    plan_package: dict[str, Any]
    derived_scope_snapshot: dict[str, Any]
    source_bundle_digest: str
    source_plan_id: str | None
    staged_schedule: dict[str, Any]
    import_transform_log: tuple[dict[str, Any], ...]


def preview_import(
    bundle: Mapping[str, Any], *, workspace_root: str, creator_id: str
) -> ImportPreview:
    """The sanitized package an import creates (the bundle must have validated as compatible)."""
    source_digest = digest(bundle)
    package = dict(bundle["plan"])
    original_id = package.get("plan_id")
    plan_id = f"imported-{source_digest[:12]}"
    staged = normalize_schedule(package.get("trigger"), field="plan.trigger")
    dropped = [
        b.get("binding_id")
        for b in package.get("connector_bindings") or ()
        if isinstance(b, Mapping)
    ]
    package.update(
        {
            "plan_id": plan_id,
            "plan_revision": 1,
            "lifecycle_state": "preview",
            "owner": {"owner_id": creator_id, "scope": "workspace", "audience": "internal"},
            "workspace_root": workspace_root,
            "output_roots": output_roots(workspace_root, plan_id),
            "connector_bindings": [],
        }
    )
    package["credential_envelopes"] = credential_envelopes(package)
    metadata = (
        dict(package.get("metadata") or {}) if isinstance(package.get("metadata"), Mapping) else {}
    )
    metadata["import"] = {
        "source_bundle_digest": source_digest,
        "source_plan_id": original_id,
        "source_bundle_version": bundle.get("bundle_version"),
        "sanitized_plan_id": plan_id,
        "workspace_root": workspace_root,
        "creator_id": creator_id,
        "mode": "sanitized_local_preview",
        "source_connector_bindings": dropped,
    }
    package["metadata"] = metadata
    # Objects, not sentences: clients read each step's `kind` and `message`.
    log = (
        _step(
            "plan_id_rerooted",
            f"source plan id `{original_id}` re-rooted to `{plan_id}`",
            original_id,
            plan_id,
        ),
        _step("owner_rerooted", f"owner re-rooted to `{creator_id}`", None, creator_id),
        _step(
            "output_roots_rerooted",
            f"output roots re-rooted to `{workspace_root}`",
            None,
            workspace_root,
        ),
        _step(
            "connector_bindings_cleared",
            "connector bindings cleared for local preview"
            + (f" ({', '.join(map(str, dropped))})" if dropped else ""),
            list(map(str, dropped)),
            [],
        ),
        _step(
            "credential_envelopes_recomputed",
            "credential envelopes recomputed from the sanitized preview",
            None,
            None,
        ),
        _step(
            "schedule_staged",
            f"schedule `{staged['type']}` staged until apply",
            staged,
            {"type": "manual"},
        ),
    )
    return ImportPreview(
        plan_package=package,
        derived_scope_snapshot=scope_snapshot(package),
        source_bundle_digest=source_digest,
        source_plan_id=original_id,
        staged_schedule=staged,
        import_transform_log=log,
    )


def _step(kind: str, message: str, before: Any, after: Any) -> dict[str, Any]:
    return {"kind": kind, "message": message, "from": before, "to": after}


def plan_from_import(preview: ImportPreview) -> WorkflowPlan:
    """The draft plan an imported package becomes: manual until applied, its schedule staged."""
    package = preview.plan_package
    routines = [r for r in package.get("routine_graph") or () if isinstance(r, Mapping)]
    prefixed = len(routines) > 1

    def step_id(routine_id: str, raw: str) -> str:
        base = slug(raw) or "step"
        return f"{slug(routine_id)}__{base}" if prefixed else base

    terminal: dict[str, list[str]] = {}
    for routine in routines:
        steps = [s for s in routine.get("steps") or () if isinstance(s, Mapping)]
        used = {d for s in steps for d in s.get("dependencies") or ()}
        rid = str(routine.get("routine_id"))
        ids = [step_id(rid, str(s.get("step_id"))) for s in steps if s.get("step_id") not in used]
        terminal[rid] = ids or [step_id(rid, "routine")]

    plan_steps: list[PlanStep] = []
    for routine in routines:
        rid = str(routine.get("routine_id"))
        kind = str(routine.get("semantic_kind") or "mixed")
        upstream = [
            t
            for dep in routine.get("dependencies") or ()
            for t in terminal.get(
                str(dep.get("routine_id") if isinstance(dep, Mapping) else dep), ()
            )
        ]
        steps = [s for s in routine.get("steps") or () if isinstance(s, Mapping)]
        if not steps:
            plan_steps.append(
                PlanStep(
                    step_id=step_id(rid, "routine"),
                    objective=f"Continue imported routine `{rid}`.",
                    kind=slug(kind),
                    agent_role=_ROLE_BY_KIND.get(kind, "worker"),
                    depends_on=tuple(upstream),
                    metadata={"imported": True, "source_routine_id": rid},
                )
            )
            continue
        for step in steps:
            raw_id = str(step.get("step_id"))
            own = [step_id(rid, str(d)) for d in step.get("dependencies") or ()]
            deps = own or upstream
            refs = tuple(
                InputRef(
                    step_id(rid, str(r.get("from_step_id"))),
                    slug(str(r.get("alias") or "")) or step_id(rid, str(r.get("from_step_id"))),
                )
                for r in step.get("input_refs") or ()
                if isinstance(r, Mapping) and r.get("from_step_id")
            )
            objective = next(
                (
                    str(step[k]).strip()
                    for k in ("objective", "notes", "label")
                    if isinstance(step.get(k), str) and step[k].strip()
                ),
                f"Continue imported step `{raw_id}`.",
            )
            plan_steps.append(
                PlanStep(
                    step_id=step_id(rid, raw_id),
                    objective=objective,
                    kind=slug(str(step.get("kind") or "task")) or "task",
                    agent_role=slug(str(step.get("agent_role") or ""))
                    or _ROLE_BY_KIND.get(kind, "worker"),
                    depends_on=tuple(dict.fromkeys(deps)),
                    input_refs=refs,
                    output_contract=step.get("output_contract")
                    if isinstance(step.get("output_contract"), Mapping)
                    else None,
                    metadata={"imported": True, "source_routine_id": rid, "source_step_id": raw_id},
                )
            )
    mission = package.get("mission")
    if not isinstance(mission, Mapping):
        mission = {}
    goal = str(mission.get("goal") or "").strip()
    title = package.get("title") if isinstance(package.get("title"), str) else None
    prompt = goal or f"Imported workflow bundle {preview.source_bundle_digest[:12]}"
    return WorkflowPlan(
        plan_id=package["plan_id"],
        title=clip(title or f"Imported {goal or preview.source_bundle_digest[:12]}", 80),
        original_prompt=prompt,
        workspace_root=str(package["workspace_root"]),
        steps=tuple(plan_steps),
        schedule=manual_schedule(preview.staged_schedule.get("timezone", "UTC")),
        planner_version=PLANNER_VERSION,
        plan_source="workflow_plan_import",
        normalized_prompt=normalize_prompt(prompt),
        confidence="imported",
        description=mission.get("summary") if isinstance(mission.get("summary"), str) else None,
        requires_integrations=tuple(
            str(i.get("capability"))
            for i in package.get("connector_intents") or ()
            if isinstance(i, Mapping) and i.get("capability")
        ),
        allowed_mcp_servers=(),
        operator_preferences={
            "source_kind": "imported_bundle",
            "source_bundle_digest": preview.source_bundle_digest,
        },
        save_options={
            "origin": "workflow_plan_import",
            "source_kind": "imported_bundle",
            "source_bundle_digest": preview.source_bundle_digest,
            "source_plan_id": preview.source_plan_id,
            "staged_schedule": preview.staged_schedule,
            "import_transform_log": list(preview.import_transform_log),
        },
    )


def import_summary(package: Mapping[str, Any]) -> dict[str, Any]:
    routines = [r for r in package.get("routine_graph") or () if isinstance(r, Mapping)]
    return {
        "plan_id": package.get("plan_id"),
        "plan_revision": package.get("plan_revision"),
        "routine_count": len(routines),
        "step_count": sum(len(r.get("steps") or ()) for r in routines),
        "connector_intent_count": len(package.get("connector_intents") or ()),
        "credential_envelope_count": len(package.get("credential_envelopes") or ()),
    }


__all__ = [
    "ImportPreview",
    "import_summary",
    "plan_from_import",
    "preview_import",
    "validate_bundle",
]
