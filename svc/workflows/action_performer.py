"""Performing one workflow action: an event, a resource change, a tool call, an agent run or
the mapped automation run.

:class:`ActionPerformer` does the work of a single action for the executor and returns its
output, or raises :class:`ActionFailed` with the detail the run fails with. Work it starts
elsewhere (an agent's session run, an automation run) is cancelled with it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from ..errors import SvcError
from ..events import EventFilter, EventStream, StreamEnded
from ..tools import ToolContext
from .repository import WorkflowRepository
from .run_events import TOPIC, event_base

if TYPE_CHECKING:
    from ..engine import Engine
    from .actions import ParsedAction
    from .runs import ActionRun, WorkflowRun

AUTOMATION_RUN_ENDS = frozenset({"run.completed", "run.failed", "run.cancelled"})
OUTPUT_CONTEXT_CHARS = 2000
"""How much of each earlier action's output an agent step is shown."""

SaveRun = Callable[..., Awaitable["WorkflowRun"]]


class ActionFailed(Exception):
    """An action could not do its work; the run fails with this detail."""


class ActionPerformer:
    def __init__(self, engine: Engine, repo: WorkflowRepository, save: SaveRun) -> None:
        self.engine = engine
        self.repo = repo
        self.save = save
        """Saves a run with changes (the executor's, so every save stamps the run's update)."""

    def now(self) -> int:
        return self.engine.clock.now_ms()

    async def execute(self, run: WorkflowRun, action: ActionRun, parsed: ParsedAction) -> Any:
        payload = action.with_
        if run.automation_id is not None and action.action == f"automation:{run.automation_id}":
            return await self.run_automation(run, action)
        if parsed.kind == "event_emit":
            props: dict[str, Any] = {
                **event_base(run),
                "actionID": action.action_id,
                "triggerEvent": run.trigger_event,
                "payload": payload or {},
            }
            topic = TOPIC if parsed.target.startswith("workflow.") else None
            self.engine.events.publish(parsed.target, props, topic=topic)
            return {"eventType": parsed.target}
        if parsed.kind in ("resource_put", "resource_patch"):
            if payload is not None and not isinstance(payload, Mapping):
                raise ActionFailed("`with` must be an object")
            resource = await self.repo.put_resource(
                parsed.target,
                payload if payload is not None else {},
                merge=parsed.kind == "resource_patch",
                now_ms=self.now(),
                by=f"workflow:{run.workflow_id}",
            )
            return {"key": resource.key, "rev": resource.rev}
        if parsed.kind == "resource_delete":
            return {"key": parsed.target, "deleted": await self.repo.delete_resource(parsed.target)}
        if parsed.kind == "workflow":
            raise ActionFailed(f"nested workflow action `{action.action}` is not supported")
        if parsed.kind == "tool":
            return await self.call_tool(run, action, parsed.target)
        if parsed.kind == "capability" and self.engine.tools.get(parsed.target) is not None:
            result = await self.call_tool(run, action, parsed.target)
            return {"capability": parsed.target, **result}
        if parsed.kind == "agent":
            return await self.run_agent(run, action, agent_id=parsed.target)
        # A capability no tool provides: an agent performs it from its objective.
        return await self.run_agent(run, action, agent_id=None)

    async def run_automation(self, run: WorkflowRun, action: ActionRun) -> dict[str, Any]:
        """Run the automation v2 the workflow maps to and wait for its run to end."""
        automations = self.engine.automations
        if automations is None or not hasattr(automations, "create_v2_run"):
            raise ActionFailed("automations are not available in this engine")
        if run.automation_id is None:
            raise ActionFailed(f"workflow `{run.workflow_id}` maps to no automation")
        log = self.engine.events
        # Every event of the new run comes after this seq, so waiting from it cannot miss the end.
        after = log.last_seq
        try:
            record = await automations.create_v2_run(
                run.automation_id,
                trigger_type="workflow",
                trigger_reason=f"workflow `{run.workflow_id}` run {run.run_id}",
                context={"workflowID": run.workflow_id, "workflowRunID": run.run_id},
            )
        except SvcError as exc:
            raise ActionFailed(
                f"the automation run could not start ({exc.code}): {exc.message}"
            ) from None
        await self.save(run, automation_run_id=record.run_id)
        try:
            with EventStream(log, EventFilter(run_id=record.run_id), after_seq=after) as stream:
                while not record.terminal:
                    batch = await stream.receive()
                    if any(e.type in AUTOMATION_RUN_ENDS for e in batch):
                        record = await automations.get_v2_run(record.run_id) or record
        except trio.Cancelled:
            # Shielded and bounded: a cancelled workflow run must not leave its automation run
            # working.
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await automations.cancel_v2_run(record.run_id, "workflow run cancelled")
            raise
        except StreamEnded:
            raise ActionFailed("the engine stopped while the automation run was active") from None
        output = {
            "automationID": run.automation_id,
            "automationRunID": record.run_id,
            "status": record.status,
            "nodeOutputs": dict(record.node_outputs),
        }
        if record.status != "completed":
            raise ActionFailed(
                f"the automation run ended {record.status}: {record.detail or 'no detail'}"
            )
        return output

    def workspace(self, run: WorkflowRun) -> Path:
        return Path(run.workspace_root) if run.workspace_root else self.engine.workspace

    async def call_tool(self, run: WorkflowRun, action: ActionRun, name: str) -> dict[str, Any]:
        args = action.with_ if action.with_ is not None else {}
        if not isinstance(args, Mapping):
            raise ActionFailed("`with` must be an object of tool arguments")
        ctx = ToolContext(
            workspace=self.workspace(run),
            source="automation",
            http=self.engine.http,
            settings=self.engine.settings,
            interactive=False,
            run_id=run.run_id,
            metadata={"workflowID": run.workflow_id, "actionID": action.action_id},
        )
        outcome = await self.engine.dispatcher.dispatch(name, args, ctx)
        if not outcome.ok:
            raise ActionFailed(
                f"tool `{outcome.tool}` {outcome.state} ({outcome.code}): {outcome.error}"
            )
        return {
            "tool": outcome.tool,
            "output": outcome.output or "",
            "metadata": _jsonable(outcome.metadata),
        }

    async def run_agent(
        self, run: WorkflowRun, action: ActionRun, *, agent_id: str | None
    ) -> dict[str, Any]:
        from ..sessions.requests import RunRequest
        from ..sessions.service import CreateSession
        from .actions import objective_for

        spec = action.with_ if isinstance(action.with_, Mapping) else {}
        if agent_id is not None and spec.get("prompt"):
            task = str(spec["prompt"])
        else:
            task = objective_for(action.action, action.with_)
        prompt = self.agent_prompt(run, action, task)
        sessions = self.engine.sessions
        try:
            session = await sessions.create(
                CreateSession(
                    title=f"Workflow {run.workflow_id} / {action.action_id}",
                    directory=str(self.workspace(run)),
                    source_kind="workflow",
                    source_metadata={
                        "workflowID": run.workflow_id,
                        "workflowRunID": run.run_id,
                        "actionID": action.action_id,
                    },
                )
            )
            tools = spec.get("tools")
            request = RunRequest(
                parts=({"type": "text", "text": prompt},),
                provider_id=spec.get("provider_id"),
                model_id=spec.get("model_id"),
                tool_allowlist=tuple(tools) if isinstance(tools, list) else None,
                system=spec.get("system") if isinstance(spec.get("system"), str) else None,
                source="workflow",
                agent_id=agent_id,
                metadata={
                    "workflowID": run.workflow_id,
                    "workflowRunID": run.run_id,
                    "actionID": action.action_id,
                },
            )
            started = await sessions.prompt(session.id, request)
        except SvcError as exc:
            raise ActionFailed(
                f"the agent run could not start ({exc.code}): {exc.message}"
            ) from None
        try:
            finished = await sessions.wait(started)
        except trio.Cancelled:
            # Shielded and bounded: the workflow run is being cancelled, and the
            # agent's session run must not keep working (and spending) on its own.
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await sessions.cancel(session.id, started.run.id, reason="workflow_cancelled")
            raise
        output = {
            "agentID": agent_id,
            "sessionID": session.id,
            "sessionRunID": finished.id,
            "status": finished.status,
            "reply": await sessions.reply_text(finished),
        }
        if finished.status != "completed":
            why = finished.error_message or finished.status
            raise ActionFailed(
                f"the agent run ended {finished.status} ({finished.error_code or 'no code'}): {why}"
            )
        return output

    def agent_prompt(self, run: WorkflowRun, action: ActionRun, task: str) -> str:
        lines = [
            task,
            "",
            f"This is step `{action.action_id}` of workflow `{run.workflow_id}` (run "
            f"{run.run_id}).",
        ]
        earlier = [a for a in run.actions if a.status == "completed" and a.output is not None]
        if earlier:
            lines.append("Results of the earlier steps of this run:")
            for done in earlier:
                text = json.dumps(done.output, default=str, ensure_ascii=False)
                if len(text) > OUTPUT_CONTEXT_CHARS:
                    text = text[:OUTPUT_CONTEXT_CHARS] + "…"
                lines.append(f"- {done.action_id} ({done.action}): {text}")
        return "\n".join(lines)


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


__all__ = ["ActionFailed", "ActionPerformer"]
