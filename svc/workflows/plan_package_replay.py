"""Plan package replay: can the runs and artifacts of one revision carry on under another.

The same report answers an import's compatibility check: a blocking issue (a changed plan
id, moved output roots) means earlier runs and artifacts would be stranded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .plan_package import credential_envelopes
from .plan_package_validation import Issue, issue


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
            issue("plan_id_changed", "plan_id", "revisions must keep the plan id", blocking=True)
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
            issue(
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


__all__ = ["compare_replay", "replay_report"]
