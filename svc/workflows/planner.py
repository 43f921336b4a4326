"""The LLM side of the planner: draft a plan from a prompt, revise it from a chat message.

The planner asks the configured provider (``engine.providers.resolve()``, or
the model named in ``operator_preferences``) for one JSON object. A reply that
is not usable (no JSON, an invalid plan, a provider failure, a timeout) never
fails the request: the draft falls back to a one-step plan and
``planner_diagnostics.fallback_reason`` says why, so the operator can still
refine it in chat or fix the model configuration.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..errors import SvcError
from .errors import PlanInvalid

if TYPE_CHECKING:
    from ..engine import Engine
    from .plan_normalization import PlanContext
    from .plans import WorkflowPlan

# The plan model and the chat types are imported by the first draft or revision: start-up builds the
# planner but never plans (docs/architecture.md, "Start-up budget").

log = logging.getLogger("svc.workflows.planner")

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")

PLAN_SCHEMA_TEXT = """\
A plan object:
{"title": "<short title>", "description": "<one paragraph>",
 "schedule": {"type": "manual"} | {"type": "interval", "interval_seconds": 3600} |
             {"type": "cron", "cron_expression": "0 9 * * 1-5", "timezone": "UTC"},
 "steps": [{"step_id": "collect_sources", "kind": "research", \
"objective": "<what this step must do>",
            "agent_role": "researcher", "depends_on": [], "input_refs": [],
            "output_contract": {"kind": "structured_json", "validator": "structured_json"}}],
 "requires_integrations": ["<connector names the plan needs, e.g. github>"]}
Rules:
- step ids are descriptive lowercase snake_case and unique; steps form a DAG;
- every input_refs[].from_step_id also appears in that step's depends_on \
(a hand-off is a dependency);
- each step owns one objective and one output; name concrete files, tools and destinations \
from the request;
- output_contract.kind is one of structured_json, report_markdown, text_summary, urls, citations, \
brief,
  review, review_summary, approval_gate, code_patch;
- keep the schedule manual unless the request asks for a recurring run.
"""


@attrs.frozen
class DraftResult:
    plan: WorkflowPlan
    assistant_text: str | None
    clarifier: Mapping[str, Any] | None
    diagnostics: Mapping[str, Any]


@attrs.frozen
class RevisionResult:
    plan: WorkflowPlan | None
    """The revised plan, or ``None`` when the plan stays as it was."""
    assistant_text: str
    change_summary: tuple[str, ...]
    clarifier: Mapping[str, Any] | None
    diagnostics: Mapping[str, Any]


def extract_json(text: str) -> Any:
    """The JSON object in a model reply (code fences and surrounding prose tolerated); ``None`` if
    there is none."""
    cleaned = _FENCE.sub("", text.strip())
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        pass
    start, end = cleaned.find("{"), cleaned.rfind("}")
    if start == -1 or end <= start:
        return None
    try:
        return json.loads(cleaned[start : end + 1])
    except json.JSONDecodeError:
        return None


class Planner:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------ model call
    async def _ask(
        self, system: str, user: str, preferences: Mapping[str, Any] | None
    ) -> tuple[str, dict[str, Any]]:
        from ..providers.types import ChatMessage, ChatRequest

        prefs = preferences or {}
        provider_id = (
            prefs.get("model_provider") if isinstance(prefs.get("model_provider"), str) else None
        )
        model_id = prefs.get("model_id") if isinstance(prefs.get("model_id"), str) else None
        provider, model = self.engine.providers.resolve(provider_id, model_id)
        info: dict[str, Any] = {"planner_provider": provider.id, "planner_model": model}
        request = ChatRequest(
            model=model,
            messages=(ChatMessage("system", system), ChatMessage("user", user)),
            tool_choice="none",
            temperature=0.2,
            metadata={"title": "svc workflow planner"},
        )
        timeout = self.engine.settings.workflow_planner_timeout_ms / 1000
        with trio.move_on_after(timeout) as timer:
            completion = await provider.chat(request)
        if timer.cancelled_caught:
            raise TimeoutError(f"the planner model did not answer within {timeout:g} s")
        if completion.usage is not None:
            info["usage"] = {
                "prompt_tokens": completion.usage.prompt_tokens,
                "completion_tokens": completion.usage.completion_tokens,
            }
        return completion.text, info

    def _context_lines(self, ctx: PlanContext) -> list[str]:
        tools = ", ".join(self.engine.tools.names()[:60])
        lines = [f"Workspace root: {ctx.workspace_root}", f"Available tools: {tools}"]
        if ctx.allowed_mcp_servers:
            lines.append(
                "Allowed MCP servers (their tools are mcp.<server>.*): "
                f"{', '.join(ctx.allowed_mcp_servers)}"
            )
        if ctx.schedule is not None:
            lines.append(f"Schedule fixed by the operator: {json.dumps(ctx.schedule)}")
        lines.append(f"At most {ctx.max_steps} steps.")
        return lines

    # ------------------------------------------------------------ drafting
    async def draft(self, ctx: PlanContext) -> DraftResult:
        from .plan_bodies import parse_plan_body
        from .plan_normalization import normalize_plan

        system = (
            "You are the workflow planner of an agent automation runtime. You turn an operator's "
            "request into a "
            "workflow plan that runs as a DAG of agent steps.\n"
            "Reply with ONE JSON object and nothing else, either\n"
            '{"action": "build", "assistant_text": "<a sentence or two for the operator>", '
            '"plan": <plan>}\n'
            "or, only when the request is too ambiguous to plan,\n"
            '{"action": "clarify", "assistant_text": "<why>", "clarifier": {"field": "<what is '
            'unclear>", '
            '"question": "<one question>", "options": [{"id": "a", "label": "..."}]}}\n\n'
            + PLAN_SCHEMA_TEXT
        )
        user = "\n".join([*self._context_lines(ctx), "", "Request:", ctx.prompt])
        try:
            text, info = await self._ask(system, user, ctx.operator_preferences)
        except (SvcError, TimeoutError) as exc:
            reason = "planner_timeout" if isinstance(exc, TimeoutError) else "provider_error"
            return self._fallback(ctx, reason, str(getattr(exc, "message", exc)), {})
        payload = extract_json(text)
        if not isinstance(payload, Mapping):
            return self._fallback(
                ctx, "invalid_json", "the planner reply held no JSON object", info
            )
        assistant = (
            payload.get("assistant_text")
            if isinstance(payload.get("assistant_text"), str)
            else None
        )
        action = payload.get("action")
        if action == "clarify" or (
            action not in ("build",)
            and payload.get("plan") is None
            and isinstance(payload.get("clarifier"), Mapping)
        ):
            clarifier = _clarifier(payload.get("clarifier"), assistant)
            result = self._fallback(ctx, "clarification_needed", clarifier["question"], info)
            return attrs.evolve(
                result, assistant_text=assistant or clarifier["question"], clarifier=clarifier
            )
        raw_plan = payload.get("plan", payload.get("workflow_plan"))
        if raw_plan is None:
            return self._fallback(
                ctx, "invalid_json", "the planner reply held no plan", info, assistant
            )
        try:
            plan = normalize_plan(parse_plan_body(raw_plan), ctx)
        except PlanInvalid as exc:
            return self._fallback(
                ctx,
                "validation_rejected",
                exc.message,
                info,
                assistant,
                field=exc.extra.get("field"),
            )
        diagnostics = {**info, "step_count": len(plan.steps), "fallback_reason": None}
        return DraftResult(
            plan=plan, assistant_text=assistant, clarifier=None, diagnostics=diagnostics
        )

    def _fallback(
        self,
        ctx: PlanContext,
        reason: str,
        detail: str,
        info: Mapping[str, Any],
        assistant: str | None = None,
        *,
        field: Any = None,
    ) -> DraftResult:
        from .plan_normalization import fallback_plan

        log.info(
            "planner fell back to a one-step draft", extra={"reason": reason, "detail": detail}
        )
        diagnostics = {**info, "fallback_reason": reason, "detail": detail, "step_count": 1}
        if field is not None:
            diagnostics["field"] = field
        text = (
            assistant
            or f"I could not draft a full plan ({reason}: {detail}); "
            "here is a one-step draft to refine."
        )
        return DraftResult(
            plan=fallback_plan(ctx, reason=reason),
            assistant_text=text,
            clarifier=None,
            diagnostics=diagnostics,
        )

    # ------------------------------------------------------------ revising
    async def revise(
        self,
        plan: WorkflowPlan,
        history: Sequence[Mapping[str, Any]],
        message: str,
        *,
        max_steps: int,
    ) -> RevisionResult:
        from .plan_bodies import parse_plan_body
        from .plan_normalization import PlanContext, normalize_plan

        ctx = PlanContext(
            plan_id=plan.plan_id,
            prompt=plan.original_prompt,
            workspace_root=plan.workspace_root,
            plan_source=plan.plan_source,
            allowed_mcp_servers=plan.allowed_mcp_servers,
            operator_preferences=plan.operator_preferences,
            max_steps=max_steps,
            confidence=plan.confidence,
        )
        system = (
            "You are the workflow planner of an agent automation runtime, revising a plan with "
            "its operator.\n"
            "Reply with ONE JSON object and nothing else, either\n"
            '{"action": "revise", "assistant_text": "<what you changed>", "change_summary": '
            '["<one line per '
            'change>"], "plan": <the whole revised plan>}\n'
            '{"action": "keep", "assistant_text": "<answer, plan unchanged>"}\n'
            '{"action": "clarify", "assistant_text": "<why>", "clarifier": {"field": "...", '
            '"question": "...", '
            '"options": []}}\n\n' + PLAN_SCHEMA_TEXT
        )
        transcript = [f"{m.get('role')}: {m.get('text')}" for m in history[-12:]]
        user = "\n".join(
            [
                *self._context_lines(ctx),
                "",
                "Current plan:",
                json.dumps(_editable(plan), indent=1),
                "",
                "Conversation so far:",
                *transcript,
                "",
                "Operator's new message:",
                message,
            ]
        )
        try:
            text, info = await self._ask(system, user, plan.operator_preferences)
        except (SvcError, TimeoutError) as exc:
            reason = "planner_timeout" if isinstance(exc, TimeoutError) else "provider_error"
            detail = str(getattr(exc, "message", exc))
            return RevisionResult(
                None,
                f"The plan is unchanged: the planner model failed ({detail}).",
                (),
                None,
                {"fallback_reason": reason, "detail": detail},
            )
        payload = extract_json(text)
        if not isinstance(payload, Mapping):
            return RevisionResult(
                None,
                "The plan is unchanged: the planner reply could not be read.",
                (),
                None,
                {**info, "fallback_reason": "invalid_json"},
            )
        assistant = (
            payload.get("assistant_text") if isinstance(payload.get("assistant_text"), str) else ""
        )
        action = payload.get("action")
        if action == "clarify":
            clarifier = _clarifier(payload.get("clarifier"), assistant)
            return RevisionResult(
                None,
                assistant or clarifier["question"],
                (),
                clarifier,
                {**info, "fallback_reason": None},
            )
        raw_plan = payload.get("plan")
        if action == "keep" or raw_plan is None:
            return RevisionResult(
                None,
                assistant or "The plan is unchanged.",
                (),
                None,
                {**info, "fallback_reason": None},
            )
        try:
            body = parse_plan_body(raw_plan)
            revised = normalize_plan(attrs.evolve(body, workspace_root=plan.workspace_root), ctx)
        except PlanInvalid as exc:
            return RevisionResult(
                None,
                f"The plan is unchanged: the revision was invalid ({exc.message}).",
                (),
                None,
                {
                    **info,
                    "fallback_reason": "validation_rejected",
                    "detail": exc.message,
                    "field": exc.extra.get("field"),
                },
            )
        revised = attrs.evolve(revised, save_options=plan.save_options)
        summary = payload.get("change_summary")
        lines = tuple(s for s in summary if isinstance(s, str)) if isinstance(summary, list) else ()
        return RevisionResult(
            revised,
            assistant or "Plan revised.",
            lines or tuple(describe_changes(plan, revised)),
            None,
            {**info, "fallback_reason": None, "step_count": len(revised.steps)},
        )


def _editable(plan: WorkflowPlan) -> dict[str, Any]:
    wire = plan.to_wire()
    return {
        k: wire[k]
        for k in ("title", "description", "schedule", "steps", "requires_integrations")
        if k in wire
    }


def _clarifier(raw: Any, fallback_question: str | None) -> dict[str, Any]:
    raw = raw if isinstance(raw, Mapping) else {}
    question = raw.get("question") if isinstance(raw.get("question"), str) else None
    options = [
        {"id": str(o.get("id", i)), "label": str(o.get("label", ""))}
        for i, o in enumerate(raw.get("options") or [])
        if isinstance(o, Mapping)
    ]
    return {
        "field": raw.get("field") if isinstance(raw.get("field"), str) else "general",
        "question": question
        or fallback_question
        or "Could you say more about what the workflow should do?",
        "options": options,
    }


def describe_changes(before: WorkflowPlan, after: WorkflowPlan) -> list[str]:
    """A readable change list, used when the model gives none."""
    lines: list[str] = []
    if before.title != after.title:
        lines.append(f"title: {before.title!r} -> {after.title!r}")
    if dict(before.schedule) != dict(after.schedule):
        lines.append(f"schedule: {before.schedule.get('type')} -> {after.schedule.get('type')}")
    old = {s.step_id: s for s in before.steps}
    new = {s.step_id: s for s in after.steps}
    lines += [f"added step `{s}`" for s in new if s not in old]
    lines += [f"removed step `{s}`" for s in old if s not in new]
    lines += [f"changed step `{s}`" for s in new if s in old and new[s] != old[s]]
    return lines


__all__ = ["DraftResult", "Planner", "RevisionResult", "describe_changes", "extract_json"]
