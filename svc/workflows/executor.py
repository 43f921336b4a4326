"""Drive a workflow run: its actions in order, pausing at approval gates.

Every state change is saved before it is announced (``workflow.*`` events on
topic ``workflows``), so a client reading the run after an event sees at least
that state. Cancellation of the task driving a run is the caller's business
(:mod:`svc.workflows.runner` turns its own cancel into a ``cancelled`` run);
this module only guarantees that an agent session run started by an action is
cancelled with it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..errors import SvcError
from ..events import EventFilter, EventStream, StreamEnded
from ..tools import ToolContext
from .repository import WorkflowRepository

if TYPE_CHECKING:
    from ..engine import Engine
    from .actions import ParsedAction
    from .runs import ActionRun, PendingGate, WorkflowRun

# The action parser, the run records and the session requests are imported by the first run:
# start-up on a fresh store drives none (docs/architecture.md, "Start-up budget").

TOPIC = "workflows"
AUTOMATION_RUN_ENDS = frozenset({"run.completed", "run.failed", "run.cancelled"})
OUTPUT_CONTEXT_CHARS = 2000
"""How much of each earlier action's output an agent step is shown."""


class ActionFailed(Exception):
    """An action could not do its work; the run fails with this detail."""


def event_base(run: WorkflowRun) -> dict[str, Any]:
    """Properties every event about ``run`` carries."""
    props: dict[str, Any] = {"runID": run.run_id, "workflowID": run.workflow_id}
    if run.binding_id is not None:
        props["bindingID"] = run.binding_id
    if run.task_id is not None:
        props["taskID"] = run.task_id
    if run.hook_chain:
        props["hookChain"] = list(run.hook_chain)
    return props


class WorkflowExecutor:
    def __init__(self, engine: Engine, repo: WorkflowRepository) -> None:
        self.engine = engine
        self.repo = repo
        self.on_gate: Callable[[PendingGate], None] = lambda _gate: None
        """Called when a run pauses at a gate (the gate-expiry watcher re-plans its wake-up)."""

    # ------------------------------------------------------------ plumbing
    def now(self) -> int:
        return self.engine.clock.now_ms()

    def publish(self, type: str, run: WorkflowRun, **extra: Any) -> None:
        self.engine.events.publish(type, {**event_base(run), **extra}, topic=TOPIC)

    async def save(self, run: WorkflowRun, **changes: Any) -> WorkflowRun:
        run = attrs.evolve(run, updated_at_ms=self.now(), **changes)
        await self.repo.save_run(run)
        return run

    async def save_action(self, run: WorkflowRun, action: ActionRun, **changes: Any) -> WorkflowRun:
        updated = attrs.evolve(action, updated_at_ms=self.now(), **changes)
        return await self.save(run.with_action(updated))

    # ------------------------------------------------------------ the loop
    async def drive(self, run: WorkflowRun) -> WorkflowRun:
        """Run every action not yet completed; return the run paused, completed or failed."""
        from .actions import ActionInvalid, parse_action

        if run.status != "running":
            run = await self.save(run, status="running")
            self.publish(
                "workflow.run.started",
                run,
                triggerType=run.trigger_type,
                triggerEvent=run.trigger_event,
                sourceEventID=run.source_event_id,
                dryRun=False,
            )
        for action in run.actions:
            current = run.action(action.action_id) or action
            if current.status in ("completed", "skipped"):
                continue
            try:
                parsed = parse_action(current.action)
            except ActionInvalid as exc:
                return await self.fail(run, current, str(exc))
            if parsed.kind == "approval_gate":
                return await self.pause_at_gate(run, current)
            run = await self.save_action(run, current, status="running", detail=None, output=None)
            self.publish(
                "workflow.action.started", run, actionID=current.action_id, action=current.action
            )
            try:
                output = await self.execute(run, current, parsed)
            except ActionFailed as exc:
                run = await self.refresh_links(run)
                return await self.fail(run, run.action(current.action_id) or current, str(exc))
            run = await self.refresh_links(run)
            run = await self.save_action(
                run,
                run.action(current.action_id) or current,
                status="completed",
                output=output,
                detail=None,
            )
            self.publish(
                "workflow.action.completed",
                run,
                actionID=current.action_id,
                action=current.action,
                output=output,
            )
        run = await self.save(
            run, status="completed", finished_at_ms=self.now(), awaiting_gate=None
        )
        self.publish("workflow.run.completed", run)
        return run

    async def refresh_links(self, run: WorkflowRun) -> WorkflowRun:
        """Pick up the automation run id an action recorded while it ran."""
        if run.automation_id is None:
            return run
        stored = await self.repo.get_run(run.run_id)
        if stored is None or stored.automation_run_id == run.automation_run_id:
            return run
        return attrs.evolve(run, automation_run_id=stored.automation_run_id)

    async def fail(self, run: WorkflowRun, action: ActionRun, detail: str) -> WorkflowRun:
        run = run.with_action(
            attrs.evolve(action, status="failed", detail=detail, updated_at_ms=self.now())
        )
        run = await self.save(run, status="failed", finished_at_ms=self.now(), detail=detail)
        self.publish(
            "workflow.action.failed",
            run,
            actionID=action.action_id,
            action=action.action,
            error=detail,
        )
        self.publish("workflow.run.failed", run, actionID=action.action_id, error=detail)
        return run

    async def pause_at_gate(self, run: WorkflowRun, action: ActionRun) -> WorkflowRun:
        gate = self.gate_for(run, action)
        run = run.with_action(
            attrs.evolve(
                action, status="pending", detail="awaiting human approval", updated_at_ms=self.now()
            )
        )
        run = await self.save(run, status="awaiting_approval", awaiting_gate=gate)
        self.on_gate(gate)
        self.publish(
            "workflow.run.awaiting_approval",
            run,
            actionID=action.action_id,
            title=gate.title,
            instructions=gate.instructions,
            decisions=list(gate.decisions),
            expiresAtMs=gate.expires_at_ms,
        )
        return run

    def gate_for(self, run: WorkflowRun, action: ActionRun) -> PendingGate:
        from .actions import GATE_DECISIONS
        from .runs import PendingGate

        spec = action.with_ if isinstance(action.with_, Mapping) else {}
        targets = tuple(t for t in spec.get("rework_targets") or () if isinstance(t, str))
        decisions = tuple(d for d in spec.get("decisions") or () if d in GATE_DECISIONS)
        if not decisions:
            decisions = ("approve", "rework", "cancel") if targets else ("approve", "cancel")
        if not targets:
            # Never offer a decision the decide endpoint would refuse.
            decisions = tuple(d for d in decisions if d != "rework")
        now = self.now()
        ttl = self.engine.settings.workflow_gate_ttl_ms
        return PendingGate(
            action_id=action.action_id,
            decisions=decisions,
            rework_targets=targets,
            requested_at_ms=now,
            expires_at_ms=now + ttl,
            nonce=uuid.uuid4().hex,
            title=spec.get("title") if isinstance(spec.get("title"), str) else None,
            instructions=spec.get("instructions")
            if isinstance(spec.get("instructions"), str)
            else None,
        )

    # ------------------------------------------------------------ actions
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


__all__ = ["TOPIC", "ActionFailed", "WorkflowExecutor", "event_base"]
