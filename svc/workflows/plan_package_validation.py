"""Plan package validation: may a package be applied, and may its schedule be switched on.

Every problem is an *issue* (``{code, severity, path, message, blocking}``): blocking
issues refuse the apply, warnings only hold back activation. A package from outside is
checked for JSON shape first (:func:`shape_issues`), so nothing later trips over a field of
the wrong type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import PlanInvalid
from .plan_normalization import dependency_cycle
from .plan_package import LIFECYCLE_STATES
from .schedule import normalize_schedule

Issue = dict[str, Any]


def issue(code: str, path: str, message: str, *, blocking: bool) -> Issue:
    return {
        "code": code,
        "severity": "error" if blocking else "warning",
        "path": path,
        "message": message,
        "blocking": blocking,
    }


def _bad_shape(path: str, message: str) -> Issue:
    return issue("invalid_shape", path, message, blocking=True)


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
            issue("invalid_package", "plan", "the plan package must be an object", blocking=True)
        ]
    issues: list[Issue] = shape_issues(package)
    if issues:
        return issues
    if not isinstance(package.get("plan_id"), str) or not package["plan_id"].strip():
        issues.append(
            issue("missing_plan_id", "plan_id", "the package needs a plan_id", blocking=True)
        )
    if package.get("lifecycle_state") not in LIFECYCLE_STATES:
        issues.append(
            issue(
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
            issue(
                "invalid_trigger",
                str(exc.extra.get("field", "trigger")),
                exc.message,
                blocking=True,
            )
        )
    routines = package.get("routine_graph")
    if not isinstance(routines, list) or not routines:
        issues.append(
            issue(
                "empty_routine_graph", "routine_graph", "the package has no routines", blocking=True
            )
        )
        return issues
    routine_ids: list[str] = []
    for r_index, routine in enumerate(routines):
        path = f"routine_graph[{r_index}]"
        if not isinstance(routine, Mapping) or not isinstance(routine.get("routine_id"), str):
            issues.append(
                issue(
                    "invalid_routine",
                    path,
                    "a routine must be an object with a routine_id",
                    blocking=True,
                )
            )
            continue
        if routine["routine_id"] in routine_ids:
            issues.append(
                issue(
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
                    issue(
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
            issue(
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
                issue(
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
        return [issue("invalid_steps", f"{path}.steps", "steps must be an array", blocking=True)]
    ids: list[str] = []
    for index, step in enumerate(steps):
        if (
            not isinstance(step, Mapping)
            or not isinstance(step.get("step_id"), str)
            or not step["step_id"]
        ):
            issues.append(
                issue(
                    "invalid_step",
                    f"{path}.steps[{index}]",
                    "a step needs a step_id",
                    blocking=True,
                )
            )
            continue
        if step["step_id"] in ids:
            issues.append(
                issue(
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
                    issue(
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
                issue(
                    "missing_objective",
                    f"{path}.steps[{index}].objective",
                    f"step `{step['step_id']}` has no objective",
                    blocking=False,
                )
            )
    cycle = dependency_cycle(deps)
    if cycle:
        issues.append(
            issue(
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


__all__ = ["Issue", "issue", "package_issues", "shape_issues", "validate_package"]
