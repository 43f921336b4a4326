"""Plan packages: the portable, checkable form of a plan, its scope snapshot and its bundle.

A *package* describes a plan as a graph of routines (a planner plan is one
routine, ``main``) whose steps carry their dependencies, plus the trigger
(schedule), the connectors it needs and may use, the per-routine credential
envelopes and where its outputs live. The *scope snapshot* is derived from a
package alone; a *bundle* (``{bundle_version, plan, scope_snapshot}``) carries
both, so an importer can verify that nothing about scope was altered on the way.

Everything here is plain JSON dicts in, JSON dicts out, with no I/O: the
planner stores packages inside drafts and bundles travel through HTTP.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import PlanInvalid
from .plans import WorkflowPlan, dependency_cycle
from .schedule import normalize_schedule

BUNDLE_VERSION = "1"
MAIN_ROUTINE = "main"
LIFECYCLE_STATES = ("draft", "preview", "approved", "applied")
IMPORTABLE_LIFECYCLES = ("draft", "preview")

Issue = dict[str, Any]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def output_roots(workspace_root: str, plan_id: str) -> dict[str, str]:
    base = f"{workspace_root.rstrip('/')}/.svc/plans/{plan_id}"
    return {
        "plan": f"{base}/plan",
        "history": f"{base}/run-history",
        "proof": f"{base}/proof",
        "drafts": f"{base}/drafts",
    }


def connector_bindings(servers: Iterable[str]) -> list[dict[str, str]]:
    return [
        {
            "binding_id": s,
            "binding_type": "mcp_server",
            "capability": f"mcp.{s}",
            "status": "mapped",
        }
        for s in sorted(set(servers))
    ]


def credential_envelopes(package: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per routine, the connectors it is entitled to (derived, never taken from a bundle)."""
    servers = sorted(
        {
            str(b["binding_id"])
            for b in package.get("connector_bindings") or ()
            if isinstance(b, Mapping) and b.get("status") == "mapped" and b.get("binding_id")
        }
    )
    return [
        {"routine_id": r.get("routine_id"), "entitled_connectors": servers}
        for r in package.get("routine_graph") or ()
        if isinstance(r, Mapping)
    ]


# ---------------------------------------------------------------- compile
def compile_package(
    plan: WorkflowPlan,
    *,
    revision: int,
    lifecycle: str = "preview",
    owner_id: str = "local",
) -> dict[str, Any]:
    steps = [
        {
            "step_id": s.step_id,
            "kind": s.kind,
            "label": s.step_id.replace("_", " "),
            "objective": s.objective,
            "agent_role": s.agent_role,
            "dependencies": list(s.depends_on),
            "input_refs": [r.to_wire() for r in s.input_refs],
            "outputs": [s.step_id],
            "output_contract": dict(s.output_contract) if s.output_contract else None,
            "metadata": dict(s.metadata) if s.metadata else None,
        }
        for s in plan.steps
    ]
    package: dict[str, Any] = {
        "plan_id": plan.plan_id,
        "plan_revision": revision,
        "lifecycle_state": lifecycle,
        "title": plan.title,
        "mission": {"goal": plan.original_prompt, "summary": plan.description},
        "owner": {"owner_id": owner_id, "scope": "workspace", "audience": "internal"},
        "workspace_root": plan.workspace_root,
        "execution_target": plan.execution_target,
        "trigger": dict(plan.schedule),
        "routine_graph": [
            {
                "routine_id": MAIN_ROUTINE,
                "semantic_kind": _semantic_kind(plan),
                "dependencies": [],
                "steps": steps,
            }
        ],
        "connector_intents": [
            {"capability": c, "required": True} for c in plan.requires_integrations
        ],
        "connector_bindings": connector_bindings(plan.allowed_mcp_servers),
        "output_roots": output_roots(plan.workspace_root, plan.plan_id),
        "metadata": {"planner_version": plan.planner_version, "plan_source": plan.plan_source},
    }
    package["credential_envelopes"] = credential_envelopes(package)
    return package


def _semantic_kind(plan: WorkflowPlan) -> str:
    kinds = {s.kind for s in plan.steps}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def scope_snapshot(package: Mapping[str, Any]) -> dict[str, Any]:
    """What a package may touch and how its routines hand off: derived, so it can be re-checked."""
    routines = [r for r in package.get("routine_graph") or () if isinstance(r, Mapping)]
    return {
        "plan_id": package.get("plan_id"),
        "plan_revision": package.get("plan_revision"),
        "output_roots": package.get("output_roots"),
        "connector_bindings": sorted(
            (dict(b) for b in package.get("connector_bindings") or () if isinstance(b, Mapping)),
            key=canonical_json,
        ),
        "credential_envelopes": credential_envelopes(package),
        "routine_scopes": [
            {
                "routine_id": r.get("routine_id"),
                "semantic_kind": r.get("semantic_kind"),
                "trigger": package.get("trigger"),
                "dependencies": list(r.get("dependencies") or ()),
                "step_ids": [
                    s.get("step_id") for s in r.get("steps") or () if isinstance(s, Mapping)
                ],
            }
            for r in routines
        ],
    }


def export_bundle(package: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "bundle_version": BUNDLE_VERSION,
        "plan": dict(package),
        "scope_snapshot": scope_snapshot(package),
    }


# ---------------------------------------------------------------- validation
def _issue(code: str, path: str, message: str, *, blocking: bool) -> Issue:
    return {
        "code": code,
        "severity": "error" if blocking else "warning",
        "path": path,
        "message": message,
        "blocking": blocking,
    }


def _bad_shape(path: str, message: str) -> Issue:
    return _issue("invalid_shape", path, message, blocking=True)


def _string_list_issues(value: Any, path: str, *, objects_with: str | None = None) -> list[Issue]:
    """``value`` must be absent or an array of strings (or of objects with a string
    ``objects_with``)."""
    if value is None:
        return []
    if not isinstance(value, list):
        return [_bad_shape(path, f"`{path}` must be an array")]
    for index, item in enumerate(value):
        if isinstance(item, str):
            continue
        if (
            objects_with is not None
            and isinstance(item, Mapping)
            and isinstance(item.get(objects_with), str)
        ):
            continue
        return [_bad_shape(f"{path}[{index}]", f"`{path}[{index}]` must be a string")]
    return []


def _object_list_issues(value: Any, path: str, string_fields: tuple[str, ...]) -> list[Issue]:
    """``value`` must be absent or an array of objects whose ``string_fields`` are strings when
    present."""
    if value is None:
        return []
    if not isinstance(value, list):
        return [_bad_shape(path, f"`{path}` must be an array")]
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            return [_bad_shape(f"{path}[{index}]", f"`{path}[{index}]` must be an object")]
        for name in string_fields:
            if item.get(name) is not None and not isinstance(item.get(name), str):
                return [
                    _bad_shape(
                        f"{path}[{index}].{name}", f"`{path}[{index}].{name}` must be a string"
                    )
                ]
    return []


def shape_issues(package: Mapping[str, Any]) -> list[Issue]:
    """Fields of the wrong JSON type (blocking): checked before anything else reads a package from
    outside."""
    issues = [
        *_object_list_issues(
            package.get("connector_bindings"),
            "connector_bindings",
            ("binding_id", "capability", "status"),
        ),
        *_object_list_issues(
            package.get("connector_intents"), "connector_intents", ("capability",)
        ),
        *_object_list_issues(
            package.get("credential_envelopes"), "credential_envelopes", ("routine_id",)
        ),
    ]
    for name in ("mission", "owner", "metadata", "output_roots"):
        if package.get(name) is not None and not isinstance(package.get(name), Mapping):
            issues.append(_bad_shape(name, f"`{name}` must be an object"))
    routines = package.get("routine_graph")
    if routines is not None and not isinstance(routines, list):
        return [*issues, _bad_shape("routine_graph", "`routine_graph` must be an array")]
    for r_index, routine in enumerate(routines or ()):
        path = f"routine_graph[{r_index}]"
        if not isinstance(routine, Mapping):
            issues.append(_bad_shape(path, f"`{path}` must be an object"))
            continue
        issues.extend(
            _string_list_issues(
                routine.get("dependencies"), f"{path}.dependencies", objects_with="routine_id"
            )
        )
        steps = routine.get("steps")
        issues.extend(
            _object_list_issues(steps, f"{path}.steps", ("step_id", "kind", "agent_role"))
        )
        for s_index, step in enumerate(steps if isinstance(steps, list) else ()):
            if not isinstance(step, Mapping):
                continue
            step_path = f"{path}.steps[{s_index}]"
            issues.extend(
                _string_list_issues(step.get("dependencies"), f"{step_path}.dependencies")
            )
            issues.extend(
                _object_list_issues(
                    step.get("input_refs"), f"{step_path}.input_refs", ("from_step_id", "alias")
                )
            )
    return issues


def package_issues(package: Any) -> list[Issue]:
    """Structural problems of a package (ours or imported), each blocking or a warning."""
    if not isinstance(package, Mapping):
        return [
            _issue("invalid_package", "plan", "the plan package must be an object", blocking=True)
        ]
    issues: list[Issue] = shape_issues(package)
    if issues:
        return issues
    if not isinstance(package.get("plan_id"), str) or not package["plan_id"].strip():
        issues.append(
            _issue("missing_plan_id", "plan_id", "the package needs a plan_id", blocking=True)
        )
    if package.get("lifecycle_state") not in LIFECYCLE_STATES:
        issues.append(
            _issue(
                "invalid_lifecycle_state",
                "lifecycle_state",
                f"lifecycle_state must be one of {', '.join(LIFECYCLE_STATES)}",
                blocking=True,
            )
        )
    try:
        normalize_schedule(package.get("trigger"), field="trigger")
    except PlanInvalid as exc:
        issues.append(
            _issue(
                "invalid_trigger",
                str(exc.extra.get("field", "trigger")),
                exc.message,
                blocking=True,
            )
        )
    routines = package.get("routine_graph")
    if not isinstance(routines, list) or not routines:
        issues.append(
            _issue(
                "empty_routine_graph", "routine_graph", "the package has no routines", blocking=True
            )
        )
        return issues
    routine_ids: list[str] = []
    for r_index, routine in enumerate(routines):
        path = f"routine_graph[{r_index}]"
        if not isinstance(routine, Mapping) or not isinstance(routine.get("routine_id"), str):
            issues.append(
                _issue(
                    "invalid_routine",
                    path,
                    "a routine must be an object with a routine_id",
                    blocking=True,
                )
            )
            continue
        if routine["routine_id"] in routine_ids:
            issues.append(
                _issue(
                    "duplicate_routine",
                    f"{path}.routine_id",
                    f"routine `{routine['routine_id']}` appears twice",
                    blocking=True,
                )
            )
        routine_ids.append(routine["routine_id"])
        issues.extend(_step_issues(routine, path))
    routine_deps: dict[str, list[Any]] = {
        r["routine_id"]: [
            d.get("routine_id") if isinstance(d, Mapping) else d
            for d in r.get("dependencies") or ()
        ]
        for r in routines
        if isinstance(r, Mapping) and isinstance(r.get("routine_id"), str)
    }
    for r_index, (routine_id, deps) in enumerate(routine_deps.items()):
        for dep in deps:
            if dep not in routine_deps:
                issues.append(
                    _issue(
                        "unknown_routine_dependency",
                        f"routine_graph[{r_index}].dependencies",
                        f"routine `{routine_id}` depends on unknown routine `{dep}`",
                        blocking=True,
                    )
                )
    cycle = dependency_cycle(
        {k: [d for d in v if d in routine_deps] for k, v in routine_deps.items()}
    )
    if cycle:
        issues.append(
            _issue(
                "routine_cycle",
                "routine_graph",
                f"routines form a cycle: {' -> '.join(cycle)}",
                blocking=True,
            )
        )
    mapped = {
        b.get("capability")
        for b in package.get("connector_bindings") or ()
        if isinstance(b, Mapping) and b.get("status") == "mapped"
    }
    mapped_names = {
        b.get("binding_id")
        for b in package.get("connector_bindings") or ()
        if isinstance(b, Mapping)
    }
    for index, intent in enumerate(package.get("connector_intents") or ()):
        capability = intent.get("capability") if isinstance(intent, Mapping) else None
        if (
            capability
            and capability not in mapped
            and capability not in mapped_names
            and f"mcp.{capability}" not in mapped
        ):
            issues.append(
                _issue(
                    "connector_unresolved",
                    f"connector_intents[{index}]",
                    f"no connector is bound for `{capability}`; the steps that need it cannot "
                    "reach it",
                    blocking=False,
                )
            )
    return issues


def _step_issues(routine: Mapping[str, Any], path: str) -> list[Issue]:
    issues: list[Issue] = []
    steps = routine.get("steps") or []
    if not isinstance(steps, list):
        return [_issue("invalid_steps", f"{path}.steps", "steps must be an array", blocking=True)]
    ids: list[str] = []
    for index, step in enumerate(steps):
        if (
            not isinstance(step, Mapping)
            or not isinstance(step.get("step_id"), str)
            or not step["step_id"]
        ):
            issues.append(
                _issue(
                    "invalid_step",
                    f"{path}.steps[{index}]",
                    "a step needs a step_id",
                    blocking=True,
                )
            )
            continue
        if step["step_id"] in ids:
            issues.append(
                _issue(
                    "duplicate_step",
                    f"{path}.steps[{index}].step_id",
                    f"step `{step['step_id']}` appears twice",
                    blocking=True,
                )
            )
        ids.append(step["step_id"])
    deps: dict[str, list[str]] = {}
    for index, step in enumerate(steps):
        if not isinstance(step, Mapping) or not isinstance(step.get("step_id"), str):
            continue
        step_deps = [d for d in step.get("dependencies") or () if isinstance(d, str)]
        for dep in step_deps:
            if dep not in ids:
                issues.append(
                    _issue(
                        "unknown_step_dependency",
                        f"{path}.steps[{index}].dependencies",
                        f"step `{step['step_id']}` depends on unknown step `{dep}`",
                        blocking=True,
                    )
                )
        deps[step["step_id"]] = [d for d in step_deps if d in ids]
        objective = step.get("objective") or step.get("notes") or step.get("label")
        if not isinstance(objective, str) or not objective.strip():
            issues.append(
                _issue(
                    "missing_objective",
                    f"{path}.steps[{index}].objective",
                    f"step `{step['step_id']}` has no objective",
                    blocking=False,
                )
            )
    cycle = dependency_cycle(deps)
    if cycle:
        issues.append(
            _issue(
                "step_cycle",
                f"{path}.steps",
                f"steps form a cycle: {' -> '.join(cycle)}",
                blocking=True,
            )
        )
    return issues


def validate_package(package: Mapping[str, Any]) -> dict[str, Any]:
    """``plan_package_validation``: may it be applied, and may its schedule be switched on."""
    issues = package_issues(package)
    blockers = sum(1 for i in issues if i["blocking"])
    warnings = len(issues) - blockers
    return {
        "ready_for_apply": blockers == 0,
        "ready_for_activation": blockers == 0 and warnings == 0,
        "blocker_count": blockers,
        "warning_count": warnings,
        "validation_state": "valid" if blockers == 0 else "invalid",
        "issues": issues,
    }


# ---------------------------------------------------------------- replay / import compatibility
def replay_report(
    *,
    issues: list[Issue],
    diff: list[dict[str, Any]] | None = None,
    previous: Mapping[str, Any] | None = None,
    next: Mapping[str, Any] | None = None,
    scope: bool = True,
    handoff: bool = True,
    credentials: bool = True,
) -> dict[str, Any]:
    compatible = not any(i["blocking"] for i in issues)
    return {
        "compatible": compatible,
        "scope_metadata_preserved": compatible and scope,
        "handoff_rules_preserved": compatible and handoff,
        "credential_isolation_preserved": compatible and credentials,
        "previous_plan_id": previous.get("plan_id") if previous else None,
        "next_plan_id": next.get("plan_id") if next else None,
        "previous_plan_revision": previous.get("plan_revision") if previous else None,
        "next_plan_revision": next.get("plan_revision") if next else None,
        "diff_summary": diff or [],
        "issues": issues,
    }


def compare_replay(previous: Mapping[str, Any], current: Mapping[str, Any]) -> dict[str, Any]:
    """``plan_package_replay``: can runs and artifacts of ``previous`` carry on under
    ``current``?"""
    issues: list[Issue] = []
    diff: list[dict[str, Any]] = []
    scope = handoff = credentials = True

    def changed(path: str, before: Any, after: Any, *, blocking: bool) -> None:
        diff.append(
            {
                "path": path,
                "previous_value": before,
                "next_value": after,
                "blocking": blocking,
                "preserved": False,
            }
        )

    if previous.get("plan_id") != current.get("plan_id"):
        issues.append(
            _issue("plan_id_changed", "plan_id", "revisions must keep the plan id", blocking=True)
        )
        changed("plan_id", previous.get("plan_id"), current.get("plan_id"), blocking=True)
        scope = handoff = False
    if previous.get("plan_revision") != current.get("plan_revision"):
        changed(
            "plan_revision",
            previous.get("plan_revision"),
            current.get("plan_revision"),
            blocking=False,
        )
    if previous.get("output_roots") != current.get("output_roots"):
        issues.append(
            _issue(
                "output_roots_changed",
                "output_roots",
                "output roots moved: artifacts of earlier runs would be unreachable",
                blocking=True,
            )
        )
        changed(
            "output_roots", previous.get("output_roots"), current.get("output_roots"), blocking=True
        )
        scope = False
    if previous.get("trigger") != current.get("trigger"):
        changed("trigger", previous.get("trigger"), current.get("trigger"), blocking=False)
    before_steps = _steps_by_id(previous)
    after_steps = _steps_by_id(current)
    for step_id in sorted(set(before_steps) - set(after_steps)):
        changed(f"steps.{step_id}", before_steps[step_id], None, blocking=False)
    for step_id in sorted(set(after_steps) - set(before_steps)):
        changed(f"steps.{step_id}", None, after_steps[step_id], blocking=False)
    for step_id in sorted(set(before_steps) & set(after_steps)):
        if before_steps[step_id] != after_steps[step_id]:
            changed(f"steps.{step_id}", before_steps[step_id], after_steps[step_id], blocking=False)
            if before_steps[step_id].get("input_refs") != after_steps[step_id].get("input_refs"):
                handoff = False
    if credential_envelopes(previous) != credential_envelopes(current):
        changed(
            "credential_envelopes",
            credential_envelopes(previous),
            credential_envelopes(current),
            blocking=False,
        )
        credentials = False
    return replay_report(
        issues=issues,
        diff=diff,
        previous=previous,
        next=current,
        scope=scope,
        handoff=handoff,
        credentials=credentials,
    )


def _steps_by_id(package: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for routine in package.get("routine_graph") or ():
        if not isinstance(routine, Mapping):
            continue
        for step in routine.get("steps") or ():
            if isinstance(step, Mapping) and isinstance(step.get("step_id"), str):
                found[f"{routine.get('routine_id')}::{step['step_id']}"] = {
                    k: step.get(k)
                    for k in ("kind", "objective", "agent_role", "dependencies", "input_refs")
                }
    return found


__all__ = [
    "BUNDLE_VERSION",
    "IMPORTABLE_LIFECYCLES",
    "LIFECYCLE_STATES",
    "MAIN_ROUTINE",
    "canonical_json",
    "compare_replay",
    "compile_package",
    "connector_bindings",
    "credential_envelopes",
    "digest",
    "export_bundle",
    "output_roots",
    "package_issues",
    "replay_report",
    "scope_snapshot",
    "shape_issues",
    "validate_package",
]
