"""One run: the agent loop inside its budget scope.

The loop streams the model, executes the tool calls it makes through the
dispatcher, feeds the results back as proper tool messages, and repeats until
the model answers without tools or the step limit is reached. Every part is
persisted as it completes, so a crash keeps what was done; every delta, tool
state, usage figure and status change is an event.

Its parts live in modules of their own: one model turn (``model_turn``), the
tool calls (``tool_calls``), the assistant message being built
(``run_transcript``) and the end of the run (``settlement``).

A run is a :class:`~supervisors.BudgetScope`: cancelling the run, its deadline
(default 10 minutes) and an exhausted budget (its own or an ancestor's, such as
an agent instance's) all cancel that scope. Whatever ended it, exactly one
``session.run.finished`` is published.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    ToolSpec,
)
from ..tools import ToolView
from .context import HISTORY_MESSAGES, history_messages, system_prompt
from .model_turn import stream_turn, turn_usage
from .parts import model_content
from .records import Message, Run, Session, environment
from .records import Usage as RunUsage
from .requests import RunRequest
from .run_transcript import RunTranscript
from .settlement import FAILURE_CATEGORIES, Outcome, cancel_outcome, settle
from .tool_calls import RunToolCalls, TodoSink, result_for_model

if TYPE_CHECKING:
    from .service import SessionServices

log = logging.getLogger("svc.sessions")

STEP_LIMIT_REPLY = (
    "I couldn't produce a final response within the step limit. Please retry or narrow the request."
)

_DIRECT_TOOL = re.compile(r"^/tool\s+(\S+)\s*(.*)$", re.DOTALL)


class RunExecution:
    """Executes one run; created and owned by the session actor."""

    def __init__(
        self,
        services: SessionServices,
        session: Session,
        run: Run,
        request: RunRequest,
        user_message: Message | None,
        *,
        on_todos: TodoSink | None = None,
    ) -> None:
        self.s = services
        self.session = session
        self.run = run
        self.request = request
        self.user_message = user_message
        self.events: EventLog = services.events
        settings = services.settings()
        timeout_ms = request.timeout_ms or settings.run_timeout_ms
        self.max_steps = request.max_steps or settings.max_tool_iterations
        self.cost_per_1k = settings.token_cost_per_1k_usd
        # A child of the caller's budget when there is one (an agent instance),
        # so the instance's limits and cancellation reach this run.
        self.budget = BudgetScope(
            BudgetLimits(max_duration_ms=timeout_ms), name=f"run/{run.id}", parent=request.budget
        )
        self.transcript = RunTranscript(run)
        self.usage = RunUsage()
        self.final_text = ""
        self.cancel_reason: str | None = None
        self.view: ToolView = services.tools.view(
            request.tool_allowlist if request.tool_allowlist is not None else None,
            request.tool_denylist,
        )
        self.tools = RunToolCalls(
            services,
            session,
            run,
            request,
            view=self.view,
            budget=self.budget,
            transcript=self.transcript,
            touch=self._touch,
            on_todos=on_todos,
        )
        self.provider: Provider | None = None
        self.model: str | None = None

    # ------------------------------------------------------------------ control
    def cancel(self, reason: str = "user_cancelled") -> None:
        """Cancel the run (its scope); the loop ends at its next checkpoint."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        self.budget.cancel(reason)

    def _touch(self) -> None:
        self.run = attrs.evolve(self.run, last_activity_at_ms=self.s.clock.now_ms())

    def _props(self, **extra: object) -> dict[str, object]:
        return {"sessionID": self.session.id, "runID": self.run.id, **extra}

    # ------------------------------------------------------------------ main
    async def execute(self) -> Run:
        """Run to the end; never raises except when cancelled from outside (then still settles)."""
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
                "error", exc.code, exc.message, FAILURE_CATEGORIES.get(exc.code, "provider")
            )
            if exc.partial_text:
                self.transcript.append_text(exc.partial_text)
        except SvcError as exc:
            outcome = Outcome(
                "error", exc.code, exc.message, FAILURE_CATEGORIES.get(exc.code, "runtime")
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
                await self._settle(
                    Outcome("cancelled", "ENGINE_STOPPING", "the engine stopped the run", "runtime")
                )
            raise
        if outcome is None:
            outcome = cancel_outcome(self.budget, self.cancel_reason)
        # Shielded: the record and the terminal event must land even if the
        # actor is being stopped at this very moment; it is one short write.
        with trio.CancelScope(shield=True):
            await self._settle(outcome)
        return self.run

    async def _settle(self, outcome: Outcome) -> None:
        self.run = await settle(
            self.s,
            self.run,
            self.transcript,
            outcome,
            usage=self.usage,
            final_text=self.final_text,
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
            self.final_text = await self.tools.direct(direct.group(1), direct.group(2))
            return
        messages = await self._initial_messages()
        specs = self._tool_specs()
        for _ in range(self.max_steps):
            self.budget.charge(steps=1)
            await trio.lowlevel.checkpoint_if_cancelled()
            completion = await self._call_model(messages, specs)
            if completion.text:
                self.transcript.append_text(completion.text)
            if not completion.tool_calls:
                self.final_text = completion.text
                return
            messages.append(
                ChatMessage(
                    role="assistant", content=completion.text, tool_calls=completion.tool_calls
                )
            )
            for call in completion.tool_calls:
                outcome = await self.tools.run(call)
                text, failed = result_for_model(outcome)
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
        self.transcript.append_text(STEP_LIMIT_REPLY)

    async def _initial_messages(self) -> list[ChatMessage]:
        assert self.provider is not None
        workspace = Path(self.session.directory)
        vision = self.provider.supports_vision
        skip = {self.run.id}
        if self.user_message is not None:
            skip.add(self.user_message.id)
        earlier = await self.s.repo.recent_messages(self.session.id, HISTORY_MESSAGES, skip=skip)
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
        completion = await stream_turn(
            self.provider,
            request,
            events=self.events,
            session_id=self.session.id,
            run_id=self.run.id,
            transcript=self.transcript,
        )
        self._touch()
        self._account(completion, messages)
        return completion

    def _sampling(self, key: str) -> Any:
        value = getattr(self.request, key)
        return value if value is not None else self.session.settings.get(key)

    def _account(self, completion: Completion, messages: list[ChatMessage]) -> None:
        usage = turn_usage(completion, messages)
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
                messageID=self.transcript.id,
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

    async def _persist_progress(self) -> None:
        """Commit the parts done so far (a crash later keeps them)."""
        if self.transcript.parts:
            await self.s.repo.save_message(
                self.transcript.snapshot(self.run), now_ms=self.s.clock.now_ms()
            )
