"""Plan bodies: a plan as a model's reply or a request body gives it, before any check.

Field names are forgiven (camelCase and common synonyms) and so are the shapes models
often produce (a string ``depends_on``, string ``input_refs``);
:func:`~svc.workflows.plan_normalization.normalize_plan` then checks the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..convert import aliases, structure
from ..errors import ValidationFailed
from .errors import PlanInvalid


@attrs.frozen
class InputRefBody:
    from_step_id: str = aliases("fromStepId", "fromStepID", "from", "step_id")
    alias: str | None = None


@attrs.frozen
class StepBody:
    step_id: str | None = aliases("stepId", "stepID", "id", default=None)
    kind: str | None = aliases("type", default=None)
    objective: str | None = aliases("description", "task", "instructions", default=None)
    depends_on: list[str] = aliases("dependsOn", factory=list)
    agent_role: str | None = aliases("agentRole", "role", default=None)
    input_refs: list[InputRefBody] = aliases("inputRefs", factory=list)
    output_contract: dict[str, Any] | None = aliases("outputContract", default=None)
    metadata: dict[str, Any] | None = None


@attrs.frozen
class PlanBody:
    plan_id: str | None = aliases("planId", "planID", default=None)
    planner_version: str | None = aliases("plannerVersion", default=None)
    plan_source: str | None = aliases("planSource", default=None)
    original_prompt: str | None = aliases("originalPrompt", default=None)
    normalized_prompt: str | None = aliases("normalizedPrompt", default=None)
    confidence: str | None = None
    title: str | None = None
    description: str | None = None
    schedule: Any = None
    execution_target: str | None = aliases("executionTarget", default=None)
    workspace_root: str | None = aliases("workspaceRoot", default=None)
    steps: list[StepBody] = attrs.field(factory=list)
    requires_integrations: list[str] = aliases("requiresIntegrations", factory=list)
    allowed_mcp_servers: list[str] = aliases("allowedMcpServers", factory=list)
    operator_preferences: dict[str, Any] | None = aliases("operatorPreferences", default=None)
    save_options: dict[str, Any] | None = aliases("saveOptions", default=None)


# Nested bodies fold their camelCase keys only once their annotations are real types.
for _cls in (InputRefBody, StepBody, PlanBody):
    attrs.resolve_types(_cls)


def coerce_loose_plan(raw: Any) -> Any:
    """Forgive the shapes models commonly produce: a string ``depends_on``, string
    ``input_refs``."""
    if not isinstance(raw, Mapping):
        return raw
    plan = dict(raw)
    steps = plan.get("steps")
    if isinstance(steps, list):
        fixed = []
        for step in steps:
            if isinstance(step, Mapping):
                step = dict(step)
                for key in ("depends_on", "dependsOn"):
                    if isinstance(step.get(key), str):
                        step[key] = [step[key]]
                    elif step.get(key) is None and key in step:
                        step[key] = []
                for key in ("input_refs", "inputRefs"):
                    refs = step.get(key)
                    if refs is None and key in step:
                        step[key] = []
                    elif isinstance(refs, list):
                        step[key] = [{"from_step_id": r} if isinstance(r, str) else r for r in refs]
            fixed.append(step)
        plan["steps"] = fixed
    return plan


def parse_plan_body(raw: Any, *, field: str = "plan") -> PlanBody:
    try:
        return structure(PlanBody, coerce_loose_plan(raw), what=f"`{field}`")
    except ValidationFailed as exc:
        path = exc.extra.get("field")
        where = field if path in (None, "$") else f"{field}.{path}"
        raise PlanInvalid(exc.message, field=where) from None


__all__ = ["InputRefBody", "PlanBody", "StepBody", "coerce_loose_plan", "parse_plan_body"]
