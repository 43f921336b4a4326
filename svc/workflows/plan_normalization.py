"""Plan normalization: a loose plan body checked into a :class:`~svc.workflows.plans.WorkflowPlan`.

:func:`normalize_plan` gives the steps unique snake_case ids, resolves their dependencies
and input hand-offs, refuses cycles and plans over the step budget, and raises
:class:`~svc.workflows.errors.PlanInvalid` naming the field. :func:`fallback_plan` is
the one-step draft used when a model gave nothing usable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from .errors import PlanInvalid
from .plan_bodies import PlanBody
from .plans import PLANNER_VERSION, InputRef, PlanStep, WorkflowPlan
from .schedule import normalize_schedule

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
    "OUTPUT_KINDS",
    "PlanContext",
    "clip",
    "dependency_cycle",
    "fallback_plan",
    "find_cycle",
    "normalize_plan",
    "normalize_prompt",
    "slug",
]
