"""One run: the agent loop inside its budget scope.

The loop streams the model, executes the tool calls it makes through the
dispatcher, feeds the results back as proper tool messages, and repeats until
the model answers without tools or the step limit is reached. Every part is
persisted as it completes, so a crash keeps what was done; every delta, tool
state, usage figure and status change is an event.

A run is a :class:`~supervisors.BudgetScope`: cancelling the run, its deadline
(default 10 minutes) and an exhausted budget (its own or an ancestor's, such as
an agent instance's) all cancel that scope. Whatever ended it, exactly one
``session.run.finished`` is published.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from supervisors import BudgetLimits, BudgetScope

from ..errors import SvcError
from ..events import EventLog
from ..providers.types import (
    ChatMessage,
    ChatRequest,
    Completion,
    Provider,
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from ..tools import ToolContext, ToolFailed, ToolResult, ToolView
from .context import clip_for_model, history_messages, system_prompt
from .deltas import DeltaCoalescer
from .dispatch import ToolOutcome
from .parts import model_content
from .records import Message, Run, Session, environment
from .records import Usage as RunUsage
from .requests import RunRequest

log = logging.getLogger("svc.sessions")

STORED_TOOL_OUTPUT_CHARS = 64_000
STEP_LIMIT_REPLY = (
    "I couldn't produce a final response within the step limit. Please retry or narrow the request."
)

_FAILURE_CATEGORIES = {
    "AUTHENTICATION_ERROR": "authentication",
    "PROVIDER_NOT_CONFIGURED": "provider",
    "MODEL_SELECTION_REQUIRED": "provider",
    "RATE_LIMIT_EXCEEDED": "provider",
    "CONTEXT_LENGTH_EXCEEDED": "provider",
    "PROVIDER_SERVER_ERROR": "provider",
    "PROVIDER_UNAVAILABLE": "provider",
    "PROVIDER_REQUEST_INVALID": "provider",
    "PROVIDER_STREAM_INTERRUPTED": "provider",
    "VALIDATION_FAILED": "validation",
}

_DIRECT_TOOL = re.compile(r"^/tool\s+(\S+)\s*(.*)$", re.DOTALL)


@attrs.frozen
class Outcome:
    status: str
    error_code: str | None = None
    error_message: str | None = None
    failure_category: str | None = None


class RunExecution:
    """Executes one run; created and owned by the session actor."""

    def __init__(
        self,
        services: Any,
        session: Session,
        run: Run,
        request: RunRequest,
        user_message: Message | None,
        *,
        on_todos: Any = None,
    ) -> None:
        self.s = services
        self.session = session
        self.run = run
        self.request = request
        self.user_message = user_message
        self.events: EventLog = services.events
        self._on_todos = on_todos
        settings = services.settings()
        timeout_ms = request.timeout_ms or settings.run_timeout_ms
        self.max_steps = request.max_steps or settings.max_tool_iterations
        self.cost_per_1k = settings.token_cost_per_1k_usd
        # A child of the caller's budget when there is one (an agent instance),
        # so the instance's limits and cancellation reach this run.
        self.budget = BudgetScope(
            BudgetLimits(max_duration_ms=timeout_ms), name=f"run/{run.id}", parent=request.budget
        )
        self.assistant = Message(
            id=str(uuid.uuid4()),
            session_id=session.id,
            role="assistant",
            parts=(),
            created_at_ms=run.started_at_ms,
            run_id=run.id,
            info={"runID": run.id},
        )
        self.parts: list[dict[str, Any]] = []
        self.usage = RunUsage()
        self.final_text = ""
        self.cancel_reason: str | None = None
        self.view: ToolView = services.tools.view(
            request.tool_allowlist if request.tool_allowlist is not None else None,
            request.tool_denylist,
        )
        self.provider: Provider | None = None
        self.model: str | None = None
        self._inflight: list[str] | None = None
        self._current_tool_part: dict[str, Any] | None = None

    # ------------------------------------------------------------------ control
    def cancel(self, reason: str = "user_cancelled") -> None:
        """Cancel the run (its scope); the loop ends at its next checkpoint."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        self.budget.cancel(reason)

    def _touch(self) -> None:
        self.run = attrs.evolve(self.run, last_activity_at_ms=self.s.clock.now_ms())

    def _props(self, **extra: Any) -> dict[str, Any]:
        return {"sessionID": self.session.id, "runID": self.run.id, **extra}

    # ------------------------------------------------------------------ main
    async def execute(self) -> Run:
        """Run to the end; never raises except when cancelled from outside (then still finalises)."""
        self.events.publish(
            "session.run.started",
            self._props(
                startedAtMs=self.run.started_at_ms,
                clientID=self.run.client_id,
                agentID=self.run.agent_id,
                agentProfile=self.request.agent,
                environment=environment(),
                source=self.run.source,
            ),
        )
        self.events.publish("session.status", self._props(status="running"))
        if self.user_message is not None:
            self.events.publish(
                "message.part.updated",
                self._props(
                    part={
                        "id": f"{self.user_message.id}-0",
                        "sessionID": self.session.id,
                        "messageID": self.user_message.id,
                        "type": "text",
                        "text": self.user_message.text(),
                    },
                    delta=self.user_message.text(),
                ),
            )
        outcome: Outcome | None = None
        try:
            with self.budget:
                await self._loop()
                outcome = Outcome("completed")
        except ProviderError as exc:
            outcome = Outcome(
                "error", exc.code, exc.message, _FAILURE_CATEGORIES.get(exc.code, "provider")
            )
            if exc.partial_text:
                self._append_text(exc.partial_text)
        except SvcError as exc:
            outcome = Outcome(
                "error", exc.code, exc.message, _FAILURE_CATEGORIES.get(exc.code, "runtime")
            )
        except Exception:
            log.exception("run %s failed", self.run.id)
            outcome = Outcome(
                "error", "INTERNAL_ERROR", "the run failed with an internal error", "runtime"
            )
        except BaseException:
            # Cancelled from outside the run's scope: the session actor or the
            # engine is stopping. Record it (shielded: this must land) and let
            # the cancellation continue.
            with trio.CancelScope(shield=True):
                await self._finish(
                    Outcome("cancelled", "ENGINE_STOPPING", "the engine stopped the run", "runtime")
                )
            raise
        if outcome is None:
            outcome = self._cancel_outcome()
        # Shielded: the record and the terminal event must land even if the
        # actor is being stopped at this very moment; it is one short write.
        with trio.CancelScope(shield=True):
            await self._finish(outcome)
        return self.run

    def _cancel_outcome(self) -> Outcome:
        exhaustion = self.budget.exhausted or self.budget.cancelled_by
        if self.cancel_reason is not None and exhaustion is None:
            return Outcome("cancelled", None, None, "user_cancelled")
        if exhaustion is not None and exhaustion.limit == "max_duration_ms":
            ms = exhaustion.limits.max_duration_ms
            return Outcome(
                "timeout", "ENGINE_TIMEOUT", f"the run timed out after {ms} ms", "timeout"
            )
        if exhaustion is not None:
            where = "" if exhaustion.scope == self.budget.name else f" ({exhaustion.scope})"
            return Outcome(
                "cancelled",
                "BUDGET_EXHAUSTED",
                f"budget exhausted: {exhaustion.limit}{where}",
                "budget_exhausted",
            )
        reason = self.budget.cancel_reason or "cancelled"
        return Outcome(
            "cancelled", None, reason if reason != "user_cancelled" else None, "user_cancelled"
        )

    # ------------------------------------------------------------------ loop
    async def _loop(self) -> None:
        self.provider, self.model = self.s.providers.resolve(
            self.request.provider_id or self.session.provider_id,
            self.request.model_id or self.session.model_id,
        )
        self.run = attrs.evolve(self.run, provider_id=self.provider.id, model_id=self.model)
        user_text = self.user_message.text() if self.user_message else ""
        direct = _DIRECT_TOOL.match(user_text.strip())
        if direct:
            await self._direct_tool(direct.group(1), direct.group(2))
            return
        messages = await self._initial_messages()
        specs = self._tool_specs()
        for _ in range(self.max_steps):
            self.budget.charge(steps=1)
            await trio.lowlevel.checkpoint_if_cancelled()
            completion = await self._call_model(messages, specs)
            if completion.text:
                self._append_text(completion.text)
            if not completion.tool_calls:
                self.final_text = completion.text
                return
            messages.append(
                ChatMessage(
                    role="assistant", content=completion.text, tool_calls=completion.tool_calls
                )
            )
            for call in completion.tool_calls:
                outcome = await self._run_tool(call)
                text, failed = _result_for_model(outcome)
                messages.append(
                    ChatMessage(
                        role="tool",
                        content=text,
                        tool_call_id=call.id,
                        name=call.name,
                        is_error=failed,
                    )
                )
            await self._persist_progress()
        self.final_text = STEP_LIMIT_REPLY
        self._append_text(STEP_LIMIT_REPLY)

    async def _initial_messages(self) -> list[ChatMessage]:
        assert self.provider is not None
        workspace = self._workspace()
        vision = self.provider.supports_vision
        history = await self.s.repo.messages(self.session.id)
        earlier = [
            m
            for m in history
            if m.run_id != self.run.id and m.id != getattr(self.user_message, "id", None)
        ]
        messages = [
            ChatMessage(
                role="system",
                content=system_prompt(
                    self.s.settings(),
                    self.session,
                    extra=self.request.system,
                    now_ms=self.s.clock.now_ms(),
                    agent=self.run.agent_id or self.request.agent,
                ),
            )
        ]
        messages.extend(history_messages(earlier, workspace=workspace, vision=vision))
        if self.user_message is not None:
            content, images = model_content(
                self.user_message.parts, workspace=workspace, vision=vision
            )
            messages.append(ChatMessage(role="user", content=content, images=images))
        return messages

    def _tool_specs(self) -> tuple[ToolSpec, ...]:
        if self.request.tool_mode == "none":
            return ()
        return tuple(
            ToolSpec(t.name, t.description, dict(t.input_schema)) for t in self.view.tools()
        )

    def _workspace(self) -> Path:
        return Path(self.session.directory)

    async def _call_model(
        self, messages: list[ChatMessage], specs: tuple[ToolSpec, ...]
    ) -> Completion:
        assert self.provider is not None and self.model is not None
        settings = self.s.settings()
        request = ChatRequest(
            model=self.model,
            messages=tuple(messages),
            tools=specs,
            tool_choice="none"
            if not specs
            else ("required" if self.request.tool_mode == "required" else "auto"),
            temperature=self._sampling("temperature"),
            top_p=self._sampling("top_p"),
            max_tokens=self._sampling("max_tokens"),
            metadata={"title": settings.protocol_title or "svc", "session_id": self.session.id},
        )
        text_part_id = f"{self.assistant.id}-t{len(self.parts)}"
        streamed: list[str] = []
        publish = self.events.publish
        session_id, run_id, message_id = self.session.id, self.run.id, self.assistant.id

        def emit_text(text: str) -> None:
            publish(
                "message.part.updated",
                {
                    "part": {
                        "id": text_part_id,
                        "sessionID": session_id,
                        "messageID": message_id,
                        "type": "text",
                        "text": text,
                    },
                    "delta": text,
                    "sessionID": session_id,
                    "runID": run_id,
                },
            )

        deltas = DeltaCoalescer(emit_text)

        def sink(event: StreamEvent) -> None:
            if isinstance(event, TextDelta):
                if event.text:
                    streamed.append(event.text)
                    deltas.add(event.text)
            elif isinstance(event, ToolCallDelta):
                deltas.flush()  # keep text and tool events in the order they streamed
                publish(
                    "message.part.updated",
                    {
                        "part": {
                            "id": event.id or f"{message_id}-call{event.index}",
                            "sessionID": session_id,
                            "messageID": message_id,
                            "type": "tool",
                            "tool": event.name,
                            "state": "pending",
                        },
                        "toolCallDelta": {
                            "id": event.id,
                            "tool": event.name,
                            "argsDelta": event.arguments_delta,
                        },
                        "sessionID": session_id,
                        "runID": run_id,
                    },
                )

        failure: ProviderError | None = None
        # What streamed so far belongs to the transcript even if the run is
        # cancelled mid-stream (_finish keeps it).
        self._inflight = streamed
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(deltas.run)
                try:
                    completion = await self.provider.chat(request, sink)
                except ProviderError as exc:
                    # Kept out of the nursery, so it reaches the loop as itself
                    # rather than wrapped in an exception group.
                    failure = exc
                finally:
                    # The stream is over: the window timer is no longer needed.
                    nursery.cancel_scope.cancel()
        finally:
            deltas.flush()
        self._inflight = None
        if failure is not None:
            if not failure.partial_text and streamed:
                failure.partial = Completion(text="".join(streamed))
            raise failure
        self._touch()
        self._account(completion, messages)
        return completion

    def _sampling(self, key: str) -> Any:
        value = getattr(self.request, key)
        return value if value is not None else self.session.settings.get(key)

    def _account(self, completion: Completion, messages: list[ChatMessage]) -> None:
        usage = completion.usage
        if usage is None or (
            usage.total_tokens <= 0 and usage.prompt_tokens + usage.completion_tokens <= 0
        ):
            prompt = sum(len(m.content) for m in messages) // 4
            done = max(1, len(completion.text) // 4) if completion.text else 0
            usage = Usage(
                prompt_tokens=prompt,
                completion_tokens=done,
                total_tokens=prompt + done,
                source="estimated",
            )
        total = usage.total_tokens or usage.prompt_tokens + usage.completion_tokens
        cost = total * self.cost_per_1k / 1000.0
        self.usage = self.usage.plus(
            RunUsage(
                usage.prompt_tokens,
                usage.completion_tokens,
                total,
                cost,
                usage.source == "estimated",
            )
        )
        self.events.publish(
            "provider.usage",
            self._props(
                messageID=self.assistant.id,
                providerID=self.provider.id if self.provider else None,
                modelID=self.model,
                promptTokens=usage.prompt_tokens,
                completionTokens=usage.completion_tokens,
                totalTokens=total,
                usageSource=usage.source,
                costUsd=round(cost, 8),
            ),
        )
        self.budget.charge(tokens=total, cost_usd=cost)

    # ------------------------------------------------------------------ tools
    def _tool_context(self, call_id: str) -> ToolContext:
        async def invoke(name: str, args: Mapping[str, Any]) -> ToolResult:
            if self.s.tools.canonical(name) == "batch":
                raise ToolFailed("batch cannot call batch")
            outcome = await self.s.dispatcher.dispatch(
                name,
                args,
                ctx,
                view=self.view,
                gates=self.request.gates,
                on_state=self._charge_tool_call,
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
                run_id=self.run.id,
                call_id=call_id,
                message_id=self.assistant.id,
            )

        async def set_todos(todos: list[dict[str, Any]]) -> None:
            if self._on_todos is not None:
                await self._on_todos(todos)
            self.events.publish(
                "todo.updated", self._props(todos=todos, workspaceRoot=self.session.directory)
            )

        ctx = ToolContext(
            workspace=Path(self.session.directory),
            source="session",
            session_id=self.session.id,
            run_id=self.run.id,
            message_id=self.assistant.id,
            call_id=call_id,
            project_id=self.session.project_id,
            agent_id=self.run.agent_id,
            interactive=True,
            engine=self.s.engine,
            invoke=invoke,
            ask_question=ask_question,
            set_todos=set_todos,
        )
        return ctx

    def _charge_tool_call(self, state: str, extra: Mapping[str, Any]) -> None:
        # Charged as the call starts executing: the call that would go over
        # the budget is cancelled before it does anything.
        if state == "running":
            self.budget.charge(tool_calls=1)

    async def _run_tool(self, call: ToolCall) -> ToolOutcome:
        part: dict[str, Any] = {
            "id": call.id,
            "sessionID": self.session.id,
            "messageID": self.assistant.id,
            "type": "tool",
            "tool": call.name,
            "args": dict(call.arguments),
            "state": "pending",
        }

        def publish_state(state: str, extra: Mapping[str, Any]) -> None:
            part["state"] = state
            part.update(extra)
            self.events.publish("message.part.updated", self._props(part=dict(part)))

        def on_state(state: str, extra: Mapping[str, Any]) -> None:
            self._charge_tool_call(state, extra)
            if state != "pending":
                publish_state(state, extra)

        publish_state("pending", {})
        self._current_tool_part = part
        outcome = await self.s.dispatcher.dispatch(
            call.name,
            call.arguments,
            self._tool_context(call.id),
            view=self.view,
            gates=self.request.gates,
            on_state=on_state,
        )
        part["tool"] = outcome.tool
        part["state"] = outcome.state
        part["result"] = _clip(outcome.output) if outcome.output is not None else None
        part["error"] = outcome.error
        if outcome.metadata:
            part["metadata"] = _jsonable(outcome.metadata)
        if outcome.state == "denied":
            self.events.publish(
                "tool.denied",
                self._props(tool=outcome.tool, reason=outcome.error, code=outcome.code),
            )
        self.events.publish("message.part.updated", self._props(part=dict(part)))
        self.parts.append(part)
        self._current_tool_part = None
        self._touch()
        return outcome

    async def _direct_tool(self, name: str, raw_args: str) -> None:
        """``/tool <name> <json>``: run one tool without the model; its output is the reply."""
        try:
            args = json.loads(raw_args) if raw_args.strip() else {}
        except json.JSONDecodeError as exc:
            self._append_text(f"Invalid JSON arguments for /tool {name}: {exc.msg}")
            self.final_text = self.parts[-1]["text"]
            return
        if not isinstance(args, dict):
            args = {"value": args}
        call = ToolCall(
            id=f"call_{uuid.uuid4().hex[:12]}", name=name, arguments=args, raw_arguments=raw_args
        )
        outcome = await self._run_tool(call)
        reply = (
            outcome.output
            if outcome.ok and outcome.output is not None
            else f"Tool `{name}` {outcome.state}: {outcome.error}"
        )
        self._append_text(reply)
        self.final_text = reply

    # ------------------------------------------------------------------ transcript
    def _append_text(self, text: str) -> None:
        if self.parts and self.parts[-1].get("type") == "text":
            self.parts[-1]["text"] += text
        else:
            self.parts.append(
                {
                    "id": f"{self.assistant.id}-t{len(self.parts)}",
                    "sessionID": self.session.id,
                    "messageID": self.assistant.id,
                    "type": "text",
                    "text": text,
                }
            )

    def _assistant_message(self) -> Message:
        return attrs.evolve(
            self.assistant,
            parts=tuple(dict(p) for p in self.parts),
            info={
                **self.assistant.info,
                "model": {"providerID": self.run.provider_id, "modelID": self.run.model_id},
            },
        )

    async def _persist_progress(self) -> None:
        """Commit the parts done so far (a crash later keeps them)."""
        if self.parts:
            await self.s.repo.save_message(self._assistant_message(), now_ms=self.s.clock.now_ms())

    async def _finish(self, outcome: Outcome) -> None:
        now = self.s.clock.now_ms()
        if self._inflight:
            self._append_text("".join(self._inflight))
            self._inflight = None
        if self._current_tool_part is not None:
            # The run ended while this call was in flight: record it as failed.
            part = self._current_tool_part
            part["state"] = "failed"
            part["error"] = f"the run ended ({outcome.status}) before the tool call finished"
            self.events.publish("message.part.updated", self._props(part=dict(part)))
            self.parts.append(part)
            self._current_tool_part = None
        if outcome.status == "error" and outcome.error_code:
            self._append_text(
                ("\n" if self.parts else "")
                + f"ENGINE_ERROR: {outcome.error_code}: {outcome.error_message}"
            )
        self.run = attrs.evolve(
            self.run,
            status=outcome.status,
            error_code=outcome.error_code,
            error_message=outcome.error_message,
            failure_category=outcome.failure_category,
            usage=self.usage,
            finished_at_ms=now,
            last_activity_at_ms=now,
            assistant_message_id=self.assistant.id if self.parts else None,
        )
        assistant = self._assistant_message() if self.parts else None
        try:
            await self.s.repo.finish_run(self.run, assistant)
        except SvcError:
            log.exception("could not record the end of run %s", self.run.id)
        final_text = "".join(p.get("text", "") for p in self.parts if p.get("type") == "text")
        if assistant is not None:
            self.events.publish(
                "message.part.updated",
                self._props(
                    part={
                        "id": f"{self.assistant.id}-final",
                        "sessionID": self.session.id,
                        "messageID": self.assistant.id,
                        "type": "text",
                        "text": self.final_text or final_text,
                    }
                ),
            )
        if outcome.status == "error":
            self.events.publish(
                "session.error",
                self._props(error={"code": outcome.error_code, "message": outcome.error_message}),
            )
        idle = "error" if outcome.status == "error" else "idle"
        self.events.publish("session.updated", self._props(status=idle))
        self.events.publish("session.status", self._props(status=idle))
        self.events.publish(
            "session.run.finished",
            self._props(
                finishedAtMs=now,
                status=outcome.status,
                error={"code": outcome.error_code, "message": outcome.error_message}
                if outcome.error_code
                else None,
                failureCategory=outcome.failure_category,
                usage=self.usage.to_wire(),
            ),
        )


def _result_for_model(outcome: ToolOutcome) -> tuple[str, bool]:
    if outcome.state == "completed":
        return clip_for_model(outcome.output or ""), False
    if outcome.state == "denied":
        return f"Permission denied for tool `{outcome.tool}`: {outcome.error}", True
    return f"Tool `{outcome.tool}` failed: {outcome.error}", True


def _clip(text: str) -> str:
    if len(text) <= STORED_TOOL_OUTPUT_CHARS:
        return text
    return text[:STORED_TOOL_OUTPUT_CHARS] + f"\n[truncated: {len(text)} characters in all]"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return json.loads(json.dumps(value, default=str))
