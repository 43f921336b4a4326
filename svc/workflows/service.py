"""The workflows facade: the registry of definitions, hooks, runs and approval gates.

Routes and other domains call :class:`WorkflowService`. It starts, cancels and recovers
runs on the :class:`~svc.workflows.runner.WorkflowRunner`, and delegates the loaded
definitions to :class:`~svc.workflows.catalog.WorkflowCatalog`, approval decisions to
:class:`~svc.workflows.gates.ApprovalGates` and hook dispatch from the engine's event log to
:class:`~svc.workflows.hook_dispatch.HookDispatcher`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..events import Event
from .catalog import WorkflowCatalog
from .context_stream import ContextRuns
from .definitions import ValidationMessage, WorkflowHook, WorkflowRegistry, WorkflowSpec
from .errors import (
    AutomationsUnavailable,
    WorkflowDisabled,
    WorkflowNotFound,
    WorkflowRunNotActive,
    WorkflowRunNotFound,
)
from .executor import WorkflowExecutor
from .gates import ApprovalGates
from .hook_dispatch import HookDispatcher, hook_chain
from .repository import WorkflowRepository
from .runner import WorkflowRunner
from .simulation import Simulation

if TYPE_CHECKING:
    from ..engine import Engine
    from .requester import Requester
    from .runs import ActionRun, WorkflowRun

# The run records are imported on first use: start-up on a fresh store starts no run
# (docs/architecture.md, "Start-up budget").


class WorkflowService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.repo = WorkflowRepository(engine.store)
        self.executor = WorkflowExecutor(engine, self.repo)
        limit = engine.settings.workflow_max_concurrent_runs
        self.runner = WorkflowRunner(self.executor, self.repo, limit=limit)
        self.context_runs = ContextRuns(engine, self.repo)
        self.gates = ApprovalGates(engine, self.repo, self.executor, self.runner)
        self.hook_dispatcher = HookDispatcher(engine.events, self.start_hook_run)
        self.catalog = WorkflowCatalog(engine, self.repo, on_install=self.hook_dispatcher.install)

    # ------------------------------------------------------------ registry
    @property
    def registry(self) -> WorkflowRegistry:
        return self.catalog.registry

    async def load(self) -> None:
        """At start-up: hook overrides from the store, then every definition file."""
        await self.catalog.load()

    async def reload(self, *, announce: bool = True) -> tuple[ValidationMessage, ...]:
        return await self.catalog.reload(announce=announce)

    async def list_workflows(self) -> list[WorkflowSpec]:
        return await self.catalog.list_workflows()

    async def get_workflow(self, workflow_id: str) -> WorkflowSpec:
        return await self.catalog.get_workflow(workflow_id)

    def automation_preview(self, spec: WorkflowSpec) -> dict[str, Any]:
        return self.catalog.automation_preview(spec)

    async def validate(self, *, reload: bool = True) -> list[ValidationMessage]:
        return await self.catalog.validate(reload=reload)

    async def simulate(self, event_type: str) -> Simulation:
        return await self.catalog.simulate(event_type)

    # ------------------------------------------------------------ hooks
    async def hooks(self, workflow_id: str | None = None) -> list[WorkflowHook]:
        return await self.catalog.hooks(workflow_id)

    async def set_hook_enabled(self, binding_id: str, enabled: bool) -> WorkflowHook:
        return await self.catalog.set_hook_enabled(binding_id, enabled)

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
        chain = (*hook_chain(event.properties), hook.binding_id)
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

    # ------------------------------------------------------------ approval gates
    async def decide_gate(
        self, run_id: str, decision: str, *, reason: str | None, requester: Requester
    ) -> WorkflowRun:
        return await self.gates.decide(run_id, decision, reason=reason, requester=requester)

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


def _task_id(properties: Mapping[str, Any]) -> str | None:
    for key in ("task_id", "taskID", "step_id", "stepID"):
        value = properties.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


__all__ = ["WorkflowService"]
