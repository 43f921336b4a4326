"""The tool calls of a run: each through the dispatcher, its states as events, its part kept."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supervisors import BudgetScope

from ..providers.types import ToolCall
from ..tools import ToolContext, ToolFailed, ToolResult, ToolView
from .context import clip_for_model
from .dispatch import ToolOutcome
from .records import Run, Session
from .requests import RunRequest
from .run_transcript import RunTranscript

if TYPE_CHECKING:
    from .service import SessionServices

STORED_TOOL_OUTPUT_CHARS = 64_000

TodoSink = Callable[[list[dict[str, Any]]], Awaitable[None]]


class RunToolCalls:
    """Executes a run's tool calls (the model's, ``batch`` sub-calls, and ``/tool``)."""

    def __init__(
        self,
        services: SessionServices,
        session: Session,
        run: Run,
        request: RunRequest,
        *,
        view: ToolView,
        budget: BudgetScope,
        transcript: RunTranscript,
        touch: Callable[[], None],
        on_todos: TodoSink | None = None,
    ) -> None:
        self.s = services
        self.session = session
        self.run_id = run.id
        self.agent_id = run.agent_id
        self.request = request
        self.view = view
        self.budget = budget
        self.transcript = transcript
        self._touch = touch
        self._on_todos = on_todos

    def _props(self, **extra: Any) -> dict[str, Any]:
        return {"sessionID": self.session.id, "runID": self.run_id, **extra}

    def charge(self, state: str, extra: Mapping[str, Any]) -> None:
        # Charged as the call starts executing: the call that would go over
        # the budget is cancelled before it does anything.
        if state == "running":
            self.budget.charge(tool_calls=1)

    async def run(self, call: ToolCall) -> ToolOutcome:
        """Execute one call; its part joins the transcript whatever the outcome."""
        part: dict[str, Any] = {
            "id": call.id,
            "sessionID": self.session.id,
            "messageID": self.transcript.id,
            "type": "tool",
            "tool": call.name,
            "args": dict(call.arguments),
            "state": "pending",
        }
        publish = self.s.events.publish

        def publish_state(state: str, extra: Mapping[str, Any]) -> None:
            part["state"] = state
            part.update(extra)
            publish("message.part.updated", self._props(part=dict(part)))

        def on_state(state: str, extra: Mapping[str, Any]) -> None:
            self.charge(state, extra)
            if state != "pending":
                publish_state(state, extra)

        publish_state("pending", {})
        self.transcript.current_tool = part
        outcome = await self.s.dispatcher.dispatch(
            call.name,
            call.arguments,
            self.context(call.id),
            view=self.view,
            gates=self.request.gates,
            on_state=on_state,
        )
        part["tool"] = outcome.tool
        part["state"] = outcome.state
        limit = self.s.settings().tool_output_max_chars
        part["result"] = _clip(outcome.output, limit) if outcome.output is not None else None
        part["error"] = outcome.error
        if outcome.metadata:
            part["metadata"] = _jsonable(outcome.metadata)
        if outcome.state == "denied":
            publish(
                "tool.denied",
                self._props(tool=outcome.tool, reason=outcome.error, code=outcome.code),
            )
        publish("message.part.updated", self._props(part=dict(part)))
        self.transcript.parts.append(part)
        self.transcript.current_tool = None
        self._touch()
        return outcome

    async def direct(self, name: str, raw_args: str) -> str:
        """``/tool <name> <json>``: run one tool without the model; returns the reply."""
        try:
            args = json.loads(raw_args) if raw_args.strip() else {}
        except json.JSONDecodeError as exc:
            reply = f"Invalid JSON arguments for /tool {name}: {exc.msg}"
            self.transcript.append_text(reply)
            return reply
        if not isinstance(args, dict):
            args = {"value": args}
        call = ToolCall(
            id=f"call_{uuid.uuid4().hex[:12]}", name=name, arguments=args, raw_arguments=raw_args
        )
        outcome = await self.run(call)
        reply = (
            outcome.output
            if outcome.ok and outcome.output is not None
            else f"Tool `{name}` {outcome.state}: {outcome.error}"
        )
        self.transcript.append_text(reply)
        return reply

    def context(self, call_id: str) -> ToolContext:
        async def invoke(name: str, args: Mapping[str, Any]) -> ToolResult:
            if self.s.tools.canonical(name) == "batch":
                raise ToolFailed("batch cannot call batch")
            outcome = await self.s.dispatcher.dispatch(
                name,
                args,
                ctx,
                view=self.view,
                gates=self.request.gates,
                on_state=self.charge,
            )
            if not outcome.ok:
                raise ToolFailed(
                    outcome.error or "tool failed", code=outcome.code or "TOOL_EXECUTION_FAILED"
                )
            return ToolResult(outcome.output or "", outcome.metadata)

        async def ask_question(questions: list[dict[str, Any]]) -> list[list[str]]:
            return await self.s.questions.ask(
                questions,
                session_id=self.session.id,
                run_id=self.run_id,
                call_id=call_id,
                message_id=self.transcript.id,
            )

        async def set_todos(todos: list[dict[str, Any]]) -> None:
            if self._on_todos is not None:
                await self._on_todos(todos)
            self.s.events.publish(
                "todo.updated", self._props(todos=todos, workspaceRoot=self.session.directory)
            )

        ctx = ToolContext(
            workspace=Path(self.session.directory),
            source="session",
            session_id=self.session.id,
            run_id=self.run_id,
            message_id=self.transcript.id,
            call_id=call_id,
            project_id=self.session.project_id,
            agent_id=self.agent_id,
            interactive=True,
            http=self.s.http,
            settings=self.s.settings(),
            invoke=invoke,
            ask_question=ask_question,
            set_todos=set_todos,
        )
        return ctx


def result_for_model(outcome: ToolOutcome) -> tuple[str, bool]:
    """The tool message the model reads, and whether it reports a failure."""
    if outcome.state == "completed":
        return clip_for_model(outcome.output or ""), False
    if outcome.state == "denied":
        return f"Permission denied for tool `{outcome.tool}`: {outcome.error}", True
    return f"Tool `{outcome.tool}` failed: {outcome.error}", True


def _clip(text: str, limit: int = STORED_TOOL_OUTPUT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[truncated: {len(text)} characters in all]"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return json.loads(json.dumps(value, default=str))
