"""Workflow plans: what the planner drafts and what applying a plan materializes.

A plan is a small DAG of steps (each with an objective, an agent role and the
steps it depends on) plus a schedule, a workspace and the integrations it needs.
:func:`normalize_plan` turns a loosely shaped plan (from a model's reply or a
request body) into a checked :class:`WorkflowPlan`, or raises
:class:`~svc.workflows.errors.PlanInvalid` naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..convert import aliases, structure
from ..errors import ValidationFailed
from .errors import PlanInvalid
from .schedule import normalize_schedule

PLANNER_VERSION = "workflow_planner_v1"
EXECUTION_TARGET = "automation_v2"
OUTPUT_KINDS = (
    "structured_json",
    "report_markdown",
    "text_summary",
    "urls",
    "citations",
    "brief",
    "review",
    "review_summary",
    "approval_gate",
    "code_patch",
    "generic_artifact",
)


# ---------------------------------------------------------------- records
@attrs.frozen
class InputRef:
    from_step_id: str
    alias: str

    def to_wire(self) -> dict[str, str]:
        return {"from_step_id": self.from_step_id, "alias": self.alias}


@attrs.frozen
class PlanStep:
    step_id: str
    objective: str
    kind: str = "task"
    agent_role: str = "worker"
    depends_on: tuple[str, ...] = ()
    input_refs: tuple[InputRef, ...] = ()
    output_contract: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "step_id": self.step_id,
            "kind": self.kind,
            "objective": self.objective,
            "depends_on": list(self.depends_on),
            "agent_role": self.agent_role,
            "input_refs": [r.to_wire() for r in self.input_refs],
        }
        if self.output_contract is not None:
            wire["output_contract"] = dict(self.output_contract)
        if self.metadata is not None:
            wire["metadata"] = dict(self.metadata)
        return wire


@attrs.frozen
class WorkflowPlan:
    plan_id: str
    title: str
    original_prompt: str
    workspace_root: str
    steps: tuple[PlanStep, ...]
    schedule: Mapping[str, Any]
    planner_version: str = PLANNER_VERSION
    plan_source: str = "unknown"
    normalized_prompt: str = ""
    confidence: str = "medium"
    description: str | None = None
    execution_target: str = EXECUTION_TARGET
    requires_integrations: tuple[str, ...] = ()
    allowed_mcp_servers: tuple[str, ...] = ()
    operator_preferences: Mapping[str, Any] | None = None
    save_options: Mapping[str, Any] = attrs.field(factory=dict)

    def step(self, step_id: str) -> PlanStep | None:
        return next((s for s in self.steps if s.step_id == step_id), None)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "plan_id": self.plan_id,
            "planner_version": self.planner_version,
            "plan_source": self.plan_source,
            "original_prompt": self.original_prompt,
            "normalized_prompt": self.normalized_prompt,
            "confidence": self.confidence,
            "title": self.title,
            "schedule": dict(self.schedule),
            "execution_target": self.execution_target,
            "workspace_root": self.workspace_root,
            "steps": [s.to_wire() for s in self.steps],
            "requires_integrations": list(self.requires_integrations),
            "allowed_mcp_servers": list(self.allowed_mcp_servers),
            "save_options": dict(self.save_options),
        }
        if self.description is not None:
            wire["description"] = self.description
        if self.operator_preferences is not None:
            wire["operator_preferences"] = dict(self.operator_preferences)
        return wire


# ---------------------------------------------------------------- loose input
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


# ---------------------------------------------------------------- normalization
_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    return _SLUG.sub("_", text.strip().lower()).strip("_")


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def normalize_prompt(prompt: str) -> str:
    return " ".join(prompt.lower().split())


@attrs.frozen
class PlanContext:
    """What the request knows about a plan that the plan body may leave out."""

    plan_id: str
    prompt: str
    workspace_root: str
    plan_source: str = "unknown"
    schedule: Mapping[str, Any] | None = None
    """An explicit schedule from the request: it wins over the body's."""
    allowed_mcp_servers: tuple[str, ...] = ()
    operator_preferences: Mapping[str, Any] | None = None
    max_steps: int = 8
    confidence: str = "medium"


def normalize_plan(body: PlanBody, ctx: PlanContext, *, field: str = "plan") -> WorkflowPlan:
    """A checked plan: unique snake_case step ids, known dependencies, a DAG, within the step
    budget."""
    if not body.steps:
        raise PlanInvalid("a plan needs at least one step", field=f"{field}.steps")
    if len(body.steps) > ctx.max_steps:
        raise PlanInvalid(
            f"a drafted plan holds at most {ctx.max_steps} steps (got {len(body.steps)}); author "
            "larger workflows as an automation or import a bundle",
            field=f"{field}.steps",
            maxSteps=ctx.max_steps,
        )
    ids: list[str] = []
    renamed: dict[str, str] = {}
    for index, step in enumerate(body.steps):
        base = slug(step.step_id or "") or slug(step.kind or "") or f"step_{index + 1}"
        step_id = base
        suffix = 2
        while step_id in ids:
            step_id = f"{base}_{suffix}"
            suffix += 1
        ids.append(step_id)
        if step.step_id:
            renamed.setdefault(step.step_id.strip(), step_id)
            renamed.setdefault(slug(step.step_id), step_id)
    known = set(ids)
    steps: list[PlanStep] = []
    for index, (step, step_id) in enumerate(zip(body.steps, ids, strict=True)):
        where = f"{field}.steps[{index}]"
        objective = (step.objective or "").strip()
        if not objective:
            raise PlanInvalid(
                f"step `{step_id}` needs an objective", field=f"{where}.objective", stepID=step_id
            )
        depends: list[str] = []
        for dep in step.depends_on:
            target = renamed.get(dep.strip(), dep.strip())
            if target not in known:
                raise PlanInvalid(
                    f"step `{step_id}` depends on unknown step `{dep}`",
                    field=f"{where}.depends_on",
                    stepID=step_id,
                )
            if target == step_id:
                raise PlanInvalid(
                    f"step `{step_id}` depends on itself",
                    field=f"{where}.depends_on",
                    stepID=step_id,
                )
            if target not in depends:
                depends.append(target)
        refs: list[InputRef] = []
        for ref_index, ref in enumerate(step.input_refs):
            source = renamed.get(ref.from_step_id.strip(), ref.from_step_id.strip())
            if source not in known or source == step_id:
                raise PlanInvalid(
                    f"step `{step_id}` takes input from unknown step `{ref.from_step_id}`",
                    field=f"{where}.input_refs[{ref_index}].from_step_id",
                    stepID=step_id,
                )
            refs.append(InputRef(source, slug(ref.alias or "") or source))
            if source not in depends:
                # A data hand-off is also a scheduling dependency.
                depends.append(source)
        contract = step.output_contract
        if contract is not None and contract.get("kind") not in OUTPUT_KINDS:
            contract = {**contract, "kind": "generic_artifact"}
        steps.append(
            PlanStep(
                step_id=step_id,
                objective=objective,
                kind=slug(step.kind or "") or "task",
                agent_role=slug(step.agent_role or "") or "worker",
                depends_on=tuple(depends),
                input_refs=tuple(refs),
                output_contract=contract,
                metadata=step.metadata,
            )
        )
    cycle = find_cycle(steps)
    if cycle:
        first = cycle[0]
        raise PlanInvalid(
            f"steps form a cycle: {' -> '.join(cycle)}",
            field=f"{field}.steps[{ids.index(first)}].depends_on",
            cycle=cycle,
        )
    workspace_root = ctx.workspace_root or (body.workspace_root or "")
    if not Path(workspace_root).is_absolute():
        raise PlanInvalid(
            "`workspace_root` must be an absolute path", field=f"{field}.workspace_root"
        )
    schedule = normalize_schedule(
        ctx.schedule if ctx.schedule is not None else body.schedule,
        field="schedule" if ctx.schedule is not None else f"{field}.schedule",
    )
    servers = _unique([*ctx.allowed_mcp_servers, *body.allowed_mcp_servers])
    prompt = ctx.prompt or body.original_prompt or ""
    title = clip(body.title or prompt or "Workflow plan", 80) or "Workflow plan"
    return WorkflowPlan(
        plan_id=ctx.plan_id,
        title=title,
        original_prompt=prompt,
        workspace_root=workspace_root,
        steps=tuple(steps),
        schedule=schedule,
        planner_version=body.planner_version or PLANNER_VERSION,
        plan_source=ctx.plan_source
        if ctx.plan_source != "unknown"
        else (body.plan_source or "unknown"),
        normalized_prompt=normalize_prompt(prompt),
        confidence=body.confidence or ctx.confidence,
        description=body.description,
        requires_integrations=tuple(_unique(body.requires_integrations)),
        allowed_mcp_servers=tuple(servers),
        operator_preferences=ctx.operator_preferences
        if ctx.operator_preferences is not None
        else body.operator_preferences,
        save_options=body.save_options or {},
    )


def find_cycle(steps: Sequence[PlanStep]) -> list[str]:
    """A dependency cycle as a list of step ids (first id repeated at the end), or ``[]``."""
    return dependency_cycle({s.step_id: s.depends_on for s in steps})


def dependency_cycle(deps: Mapping[str, Sequence[str]]) -> list[str]:
    """A cycle in ``deps`` (node -> what it depends on) as a list of nodes, the first repeated at
    the end; or ``[]``."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for dep in deps.get(node, ()):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if state.get(dep) is None:
                found = visit(dep)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in deps:
        if state.get(node) is None:
            found = visit(node)
            if found:
                return found
    return []


def _unique(values: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if isinstance(value, str) and value.strip():
            seen.setdefault(value.strip(), None)
    return list(seen)


def plan_from_wire(data: Mapping[str, Any]) -> WorkflowPlan:
    """A stored plan back into its record (stored plans were normalized when saved)."""
    return WorkflowPlan(
        plan_id=data["plan_id"],
        title=data["title"],
        original_prompt=data.get("original_prompt", ""),
        workspace_root=data["workspace_root"],
        steps=tuple(
            PlanStep(
                step_id=s["step_id"],
                objective=s["objective"],
                kind=s.get("kind", "task"),
                agent_role=s.get("agent_role", "worker"),
                depends_on=tuple(s.get("depends_on", ())),
                input_refs=tuple(
                    InputRef(r["from_step_id"], r["alias"]) for r in s.get("input_refs", ())
                ),
                output_contract=s.get("output_contract"),
                metadata=s.get("metadata"),
            )
            for s in data.get("steps", ())
        ),
        schedule=data["schedule"],
        planner_version=data.get("planner_version", PLANNER_VERSION),
        plan_source=data.get("plan_source", "unknown"),
        normalized_prompt=data.get("normalized_prompt", ""),
        confidence=data.get("confidence", "medium"),
        description=data.get("description"),
        execution_target=data.get("execution_target", EXECUTION_TARGET),
        requires_integrations=tuple(data.get("requires_integrations", ())),
        allowed_mcp_servers=tuple(data.get("allowed_mcp_servers", ())),
        operator_preferences=data.get("operator_preferences"),
        save_options=data.get("save_options") or {},
    )


def fallback_plan(ctx: PlanContext, *, reason: str) -> WorkflowPlan:
    """A one-step draft used when the model gave nothing usable: the operator can refine it
    in chat."""
    step = PlanStep(
        step_id="execute_goal",
        objective=ctx.prompt.strip() or "Carry out the requested work.",
        kind="execute",
        agent_role="worker",
        output_contract={"kind": "generic_artifact", "validator": "generic_artifact"},
    )
    return WorkflowPlan(
        plan_id=ctx.plan_id,
        title=clip(ctx.prompt or "Workflow plan", 80),
        original_prompt=ctx.prompt,
        workspace_root=ctx.workspace_root,
        steps=(step,),
        schedule=normalize_schedule(ctx.schedule),
        plan_source=ctx.plan_source,
        normalized_prompt=normalize_prompt(ctx.prompt),
        confidence="low",
        description=f"Planner fallback draft ({reason}).",
        allowed_mcp_servers=tuple(ctx.allowed_mcp_servers),
        operator_preferences=ctx.operator_preferences,
        save_options={"fallback_reason": reason},
    )


__all__ = [
    "EXECUTION_TARGET",
    "PLANNER_VERSION",
    "InputRef",
    "PlanBody",
    "PlanContext",
    "PlanStep",
    "StepBody",
    "WorkflowPlan",
    "clip",
    "coerce_loose_plan",
    "dependency_cycle",
    "fallback_plan",
    "find_cycle",
    "normalize_plan",
    "normalize_prompt",
    "parse_plan_body",
    "plan_from_wire",
    "slug",
]
