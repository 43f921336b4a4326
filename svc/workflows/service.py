"""The workflows facade: the registry of definitions, hooks, runs and approval gates.

Routes and other domains call :class:`WorkflowService`; it owns the loaded
registry (reloaded when a definition file changes), persists hook overrides,
starts runs on the :class:`~svc.workflows.runner.WorkflowRunner`, and
dispatches hooks from the engine's event log.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..events import Event, EventFilter, EventStream, StreamEnded
from .context_stream import ContextRuns
from .definitions import ValidationMessage, WorkflowHook, WorkflowRegistry, WorkflowSpec
from .errors import (
    AutomationsUnavailable,
    GateExpired,
    GateInvalidDecision,
    GateReplayed,
    GateRequiresHuman,
    RunNotAwaitingApproval,
    WorkflowDisabled,
    WorkflowHookNotFound,
    WorkflowNotFound,
    WorkflowRunNotActive,
    WorkflowRunNotFound,
)
from .executor import TOPIC, WorkflowExecutor
from .loading import LoadSource, load_registry, source_files
from .repository import WorkflowRepository
from .runner import WorkflowRunner
from .simulation import HookIndex, Simulation, simulate

if TYPE_CHECKING:
    from ..engine import Engine
    from .requester import Requester
    from .runs import ActionRun, GateDecision, WorkflowRun

# The run records, the registry validation and the automation preview are imported on first
# use: start-up on a fresh store starts, reads and validates no run (docs/architecture.md,
# "Start-up budget").

log = logging.getLogger("svc.workflows")

MAX_HOOK_CHAIN = 8
"""Hook runs triggering hook runs stop at this depth (a guard against event loops)."""

DEDUPE_WINDOW = 4096


class WorkflowService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.repo = WorkflowRepository(engine.store)
        self.executor = WorkflowExecutor(engine, self.repo)
        limit = engine.settings.workflow_max_concurrent_runs
        self.runner = WorkflowRunner(self.executor, self.repo, limit=limit)
        self.context_runs = ContextRuns(engine, self.repo)
        self._gates_changed = trio.Event()
        self.executor.on_gate = lambda _gate: self._gates_changed.set()
        self.registry = WorkflowRegistry()
        self.load_messages: tuple[ValidationMessage, ...] = ()
        self.index = HookIndex(())
        self._overrides: dict[str, bool] = {}
        self._fingerprint: list[tuple[str, int, int]] | None = None
        self._reload_lock = trio.Lock()
        self._dispatched: OrderedDict[str, None] = OrderedDict()
        self._index_changed = trio.Event()
        self._stream_scope: trio.CancelScope | None = None

    # ------------------------------------------------------------ registry
    def sources(self) -> list[LoadSource]:
        return [
            LoadSource(
                self.engine.state_dir / "builtin_workflows", "built_in", top_level_files=True
            ),
            LoadSource(self.engine.workspace / ".svc", "workspace"),
        ]

    async def load(self) -> None:
        """At start-up: hook overrides from the store, then every definition file."""
        self._overrides = await self.repo.hook_overrides()
        await self.reload(announce=False)

    async def reload(self, *, announce: bool = True) -> tuple[ValidationMessage, ...]:
        async with self._reload_lock:
            sources = self.sources()
            # The fingerprint is taken first: an edit racing the load only
            # causes one more reload later, never a missed one.
            fingerprint = await trio.to_thread.run_sync(source_files, sources)
            result = await trio.to_thread.run_sync(load_registry, sources)
            self._fingerprint = fingerprint
            self.load_messages = result.messages
            self._install(result.registry.with_hook_overrides(self._overrides))
        if announce:
            self.engine.events.publish(
                "workflow.registry.reloaded",
                {
                    "workflowCount": len(self.registry.workflows),
                    "hookCount": len(self.registry.hooks),
                    "errorCount": sum(1 for m in self.load_messages if m.severity == "error"),
                },
                topic=TOPIC,
            )
        return self.load_messages

    async def ensure_fresh(self) -> None:
        """Reload when a definition file was added, changed or removed since the last load."""
        current = await trio.to_thread.run_sync(source_files, self.sources())
        if current != self._fingerprint:
            await self.reload()

    def _install(self, registry: WorkflowRegistry) -> None:
        self.registry = registry
        self.index = HookIndex(registry.hooks, registry)
        if not self.index and self._stream_scope is not None:
            # No active hook left: the dispatcher drops its subscription.
            self._stream_scope.cancel()
        changed, self._index_changed = self._index_changed, trio.Event()
        changed.set()

    async def list_workflows(self) -> list[WorkflowSpec]:
        await self.ensure_fresh()
        return self.registry.sorted_workflows()

    async def get_workflow(self, workflow_id: str) -> WorkflowSpec:
        await self.ensure_fresh()
        spec = self.registry.workflows.get(workflow_id)
        if spec is None:
            raise WorkflowNotFound(f"workflow `{workflow_id}` not found", workflowID=workflow_id)
        return spec

    def automation_preview(self, spec: WorkflowSpec) -> dict[str, Any]:
        from .automation_spec import workflow_automation_preview

        return workflow_automation_preview(spec, workspace_root=str(self.engine.workspace))

    async def validate(self, *, reload: bool = True) -> list[ValidationMessage]:
        from .validation import validate_registry

        if reload:
            await self.reload()
        return [*self.load_messages, *validate_registry(self.registry, self.engine.tools)]

    async def simulate(self, event_type: str) -> Simulation:
        await self.ensure_fresh()
        return simulate(self.registry, event_type)

    # ------------------------------------------------------------ hooks
    async def hooks(self, workflow_id: str | None = None) -> list[WorkflowHook]:
        await self.ensure_fresh()
        return self.registry.hooks_for(workflow_id)

    async def set_hook_enabled(self, binding_id: str, enabled: bool) -> WorkflowHook:
        await self.ensure_fresh()
        if self.registry.hook(binding_id) is None:
            raise WorkflowHookNotFound(
                f"workflow hook `{binding_id}` not found", bindingID=binding_id
            )
        await self.repo.set_hook_override(binding_id, enabled, now_ms=self.engine.clock.now_ms())
        self._overrides[binding_id] = enabled
        self._install(self.registry.with_hook_overrides(self._overrides))
        hook = self.registry.hook(binding_id)
        assert hook is not None
        self.engine.events.publish(
            "workflow.hook.updated",
            {"bindingID": binding_id, "workflowID": hook.workflow_id, "enabled": enabled},
            topic=TOPIC,
        )
        return hook

    # ------------------------------------------------------------ runs
    async def start_run(
        self,
        workflow_id: str,
        *,
        dry_run: bool = False,
        workspace_root: str | None = None,
    ) -> WorkflowRun:
        from .runs import ActionRun

        spec = await self.get_workflow(workflow_id)
        if not spec.enabled:
            raise WorkflowDisabled(f"workflow `{workflow_id}` is disabled", workflowID=workflow_id)
        if spec.automation_id is not None:
            return await self._start_automation_run(
                spec, workspace_root=workspace_root, dry_run=dry_run
            )
        actions = tuple(ActionRun(step.step_id, step.action, step.with_) for step in spec.steps)
        return await self._start(
            spec,
            actions,
            trigger_type="manual",
            dry_run=dry_run,
            workspace_root=workspace_root,
            trigger_event="manual",
        )

    async def _start(
        self,
        spec: WorkflowSpec,
        actions: tuple[ActionRun, ...],
        *,
        trigger_type: str,
        dry_run: bool = False,
        workspace_root: str | None = None,
        **fields: Any,
    ) -> WorkflowRun:
        from .runs import WorkflowRun

        now = self.engine.clock.now_ms()
        if dry_run:
            actions = tuple(
                attrs.evolve(a, status="skipped", detail="dry run", updated_at_ms=now)
                for a in actions
            )
        else:
            actions = tuple(attrs.evolve(a, updated_at_ms=now) for a in actions)
        run = WorkflowRun(
            run_id=f"workflow-run-{uuid.uuid4()}",
            workflow_id=spec.workflow_id,
            status="dry_run" if dry_run else "queued",
            created_at_ms=now,
            updated_at_ms=now,
            trigger_type=trigger_type,  # type: ignore[arg-type]
            actions=actions,
            finished_at_ms=now if dry_run else None,
            workspace_root=workspace_root or str(self.engine.workspace),
            source=spec.source.to_wire() if spec.source else None,
            **fields,
        )
        await self.repo.save_run(run)
        if dry_run:
            self.executor.publish(
                "workflow.run.started",
                run,
                triggerType=trigger_type,
                dryRun=True,
                triggerEvent=run.trigger_event,
            )
            return run
        self.runner.submit(run)
        return run

    async def _start_automation_run(
        self, spec: WorkflowSpec, *, workspace_root: str | None, dry_run: bool
    ) -> WorkflowRun:
        from .runs import ActionRun

        automations = self.engine.automations
        if automations is None or not hasattr(automations, "create_v2_run"):
            raise AutomationsUnavailable(
                f"workflow `{spec.workflow_id}` maps to automation `{spec.automation_id}`, but "
                "automations "
                "are not available in this engine"
            )
        action = ActionRun(f"automation:{spec.automation_id}", f"automation:{spec.automation_id}")
        return await self._start(
            spec,
            (action,),
            trigger_type="manual",
            dry_run=dry_run,
            workspace_root=workspace_root,
            trigger_event="manual",
            automation_id=spec.automation_id,
        )

    async def start_hook_run(self, hook: WorkflowHook, event: Event) -> WorkflowRun:
        from .runs import ActionRun

        spec = self.registry.workflows.get(hook.workflow_id)
        if spec is None:
            raise WorkflowNotFound(
                f"workflow `{hook.workflow_id}` not found", workflowID=hook.workflow_id
            )
        actions = tuple(
            ActionRun(f"action_{i + 1}", a.action, a.with_) for i, a in enumerate(hook.actions)
        )
        chain = (*_chain(event.properties), hook.binding_id)
        return await self._start(
            spec,
            actions,
            trigger_type="hook",
            binding_id=hook.binding_id,
            trigger_event=event.type,
            source_event_id=event.event_id,
            task_id=_task_id(event.properties),
            hook_chain=chain,
        )

    async def list_runs(
        self, *, workflow_id: str | None = None, limit: int = 50
    ) -> list[WorkflowRun]:
        return await self.repo.list_runs(workflow_id=workflow_id, limit=limit)

    async def get_run(self, run_id: str) -> WorkflowRun:
        run = await self.repo.get_run(run_id)
        if run is None:
            raise WorkflowRunNotFound(f"workflow run `{run_id}` not found", runID=run_id)
        return run

    async def cancel_run(self, run_id: str, *, reason: str | None = None) -> WorkflowRun:
        run = await self.get_run(run_id)
        if run.terminal:
            raise WorkflowRunNotActive(
                f"workflow run `{run_id}` already ended ({run.status})",
                runID=run_id,
                currentStatus=run.status,
            )
        if self.runner.cancel(run_id):
            await self.runner.wait_settled(run_id)
            return await self.get_run(run_id)
        # Not executing (awaiting approval, or left queued): settle it here.
        now = self.engine.clock.now_ms()
        actions = tuple(
            a
            if a.status in ("completed", "failed", "skipped")
            else attrs.evolve(a, status="skipped", detail="run cancelled", updated_at_ms=now)
            for a in run.actions
        )
        cancelled = attrs.evolve(
            run,
            status="cancelled",
            finished_at_ms=now,
            updated_at_ms=now,
            actions=actions,
            awaiting_gate=None,
            detail=reason or "cancelled",
        )
        if not await self.repo.replace_run_if(cancelled, status=run.status):
            raise WorkflowRunNotActive(
                f"workflow run `{run_id}` changed state; retry", runID=run_id
            )
        self.executor.publish("workflow.run.cancelled", cancelled, reason=reason or "cancelled")
        return cancelled

    async def decide_gate(
        self, run_id: str, decision: str, *, reason: str | None, requester: Requester
    ) -> WorkflowRun:
        from .runs import GateDecision

        run = await self.get_run(run_id)
        if not requester.is_human:
            raise GateRequiresHuman(runID=run_id, requester=requester.to_wire())
        gate = run.awaiting_gate
        if run.status != "awaiting_approval" or gate is None:
            last = run.gate_history[-1].to_wire() if run.gate_history else None
            raise RunNotAwaitingApproval(runID=run_id, currentStatus=run.status, decidedGate=last)
        decision = decision.strip().lower()
        if decision not in gate.decisions:
            raise GateInvalidDecision(
                f"decision must be one of {', '.join(gate.decisions)}",
                field="decision",
                decisions=list(gate.decisions),
            )
        now = self.engine.clock.now_ms()
        if now >= gate.expires_at_ms:
            await self._expire_gate(run)
            raise GateExpired(runID=run_id, expiresAtMs=gate.expires_at_ms)
        record = GateDecision(
            action_id=gate.action_id,
            decision=decision,
            decided_at_ms=now,
            nonce=gate.nonce,
            reason=reason,
            decided_by=requester.to_wire(),
        )
        updated = _apply_decision(run, record, gate.rework_targets, now)
        if not await self.repo.replace_run_if(
            updated, status="awaiting_approval", nonce=gate.nonce
        ):
            raise GateReplayed(runID=run_id)
        self.executor.publish(
            "workflow.gate.decided",
            updated,
            actionID=gate.action_id,
            decision=decision,
            reason=reason,
            decidedBy=requester.to_wire(),
        )
        if updated.status == "cancelled":
            self.executor.publish(
                "workflow.run.cancelled", updated, reason=reason or "gate cancelled"
            )
        else:
            self.executor.publish(
                "workflow.run.resumed", updated, actionID=gate.action_id, decision=decision
            )
            self.runner.submit(updated)
        return updated

    async def _expire_gate(self, run: WorkflowRun) -> None:
        now = self.engine.clock.now_ms()
        expired = attrs.evolve(
            run,
            status="cancelled",
            finished_at_ms=now,
            updated_at_ms=now,
            awaiting_gate=None,
            detail="the approval gate expired before a decision",
        )
        if await self.repo.replace_run_if(expired, status="awaiting_approval"):
            self.executor.publish("workflow.run.cancelled", expired, reason="gate_expired")

    async def recover(self) -> int:
        """At start-up: runs the previous process left queued or running end as failed."""
        settled = 0
        for status in ("queued", "running"):
            for run in await self.repo.list_runs(status=status, limit=100_000):
                now = self.engine.clock.now_ms()
                failed = attrs.evolve(
                    run,
                    status="failed",
                    finished_at_ms=now,
                    updated_at_ms=now,
                    detail="the engine stopped while this run was active",
                )
                await self.repo.save_run(failed)
                self.executor.publish(
                    "workflow.run.failed", failed, error=failed.detail, code="ENGINE_RESTARTED"
                )
                settled += 1
        return settled

    async def run_gate_expiry(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Cancel runs whose approval gate expired undecided (a long-running child of the engine).

        It sleeps until the earliest pending expiry, or until a new gate opens.
        """
        task_status.started()
        clock = self.engine.clock
        while True:
            changed = self._gates_changed = trio.Event()
            waiting = await self.repo.list_runs(status="awaiting_approval", limit=100_000)
            now = clock.now_ms()
            upcoming = []
            for run in waiting:
                gate = run.awaiting_gate
                if gate is None:
                    continue
                if now >= gate.expires_at_ms:
                    await self._expire_gate(run)
                else:
                    upcoming.append(gate.expires_at_ms)
            deadline = clock.to_trio_time(min(upcoming)) if upcoming else math.inf
            with trio.move_on_at(deadline):
                await changed.wait()

    # ------------------------------------------------------------ hook dispatch
    def _might_trigger(self, event: Event) -> bool:
        return bool(self.index.match(event.type))

    async def run_dispatcher(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Run the hooks every new event matches (a long-running child of the engine).

        The dispatcher reads the event log only while at least one hook is
        active: an engine without hooks holds no subscription at all.
        """
        task_status.started()
        while True:
            if not self.index:
                await self._index_changed.wait()
                continue
            with trio.CancelScope() as scope:
                self._stream_scope = scope
                with EventStream(
                    self.engine.events, EventFilter(predicate=self._might_trigger)
                ) as stream:
                    while True:
                        try:
                            batch = await stream.receive()
                        except StreamEnded:
                            # The log is shutting down; wait for the cancellation that follows.
                            await trio.sleep_forever()
                        for event in batch:
                            await self.dispatch(event)
            self._stream_scope = None

    async def dispatch(self, event: Event) -> list[WorkflowRun]:
        """Start a run for each active hook ``event`` matches (once per hook and event)."""
        started = []
        chain = _chain(event.properties)
        for hook in self.index.match(event.type):
            if hook.binding_id in chain:
                continue  # a hook never fires on the events of its own run
            if len(chain) >= MAX_HOOK_CHAIN:
                log.warning("hook %s not run: hook chain %s is too deep", hook.binding_id, chain)
                continue
            key = f"{hook.binding_id}::{event.event_id}"
            if key in self._dispatched:
                continue
            self._dispatched[key] = None
            while len(self._dispatched) > DEDUPE_WINDOW:
                self._dispatched.popitem(last=False)
            try:
                started.append(await self.start_hook_run(hook, event))
            except Exception:
                log.exception("hook %s could not start a run for %s", hook.binding_id, event.type)
        return started


def _chain(properties: Mapping[str, Any]) -> list[str]:
    chain = properties.get("hookChain")
    return [c for c in chain if isinstance(c, str)] if isinstance(chain, list) else []


def _task_id(properties: Mapping[str, Any]) -> str | None:
    for key in ("task_id", "taskID", "step_id", "stepID"):
        value = properties.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _apply_decision(
    run: WorkflowRun, record: GateDecision, targets: tuple[str, ...], now: int
) -> WorkflowRun:
    history = (*run.gate_history, record)
    if record.decision == "approve":
        actions = tuple(
            attrs.evolve(
                a,
                status="completed",
                detail="gate approved",
                output={"decision": "approve", "reason": record.reason},
                updated_at_ms=now,
            )
            if a.action_id == record.action_id
            else a
            for a in run.actions
        )
        return attrs.evolve(
            run,
            status="running",
            awaiting_gate=None,
            gate_history=history,
            actions=actions,
            updated_at_ms=now,
        )
    if record.decision == "rework":
        actions = tuple(
            attrs.evolve(
                a,
                status="pending",
                detail="re-queued by gate rework",
                output=None,
                updated_at_ms=now,
            )
            if a.action_id in targets
            else a
            for a in run.actions
        )
        return attrs.evolve(
            run,
            status="running",
            awaiting_gate=None,
            gate_history=history,
            actions=actions,
            updated_at_ms=now,
        )
    actions = tuple(
        attrs.evolve(a, status="skipped", detail="gate cancelled", updated_at_ms=now)
        if a.status in ("pending", "running")
        else a
        for a in run.actions
    )
    return attrs.evolve(
        run,
        status="cancelled",
        awaiting_gate=None,
        gate_history=history,
        actions=actions,
        finished_at_ms=now,
        updated_at_ms=now,
        detail="cancelled at the approval gate",
    )


__all__ = ["MAX_HOOK_CHAIN", "WorkflowService"]
