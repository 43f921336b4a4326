"""Where workflow runs execute: a supervised nursery, a concurrency limit, a cancel scope per run.

The runner is a long-running child of the engine's ``services`` supervisor.
``submit(run)`` starts driving a run in the runner's nursery; at most
``limit`` runs execute at once and the rest wait as ``queued``. ``cancel`` ends
a run's task through its own cancel scope, which is what tells a deliberate
cancel (the run becomes ``cancelled``) apart from engine shutdown (the run stays
``running`` in the store and is settled as failed at the next start).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import attrs
import trio

from ..errors import EngineStarting
from .executor import WorkflowExecutor
from .repository import WorkflowRepository

if TYPE_CHECKING:
    from .runs import ActionRun, WorkflowRun

log = logging.getLogger("svc.workflows")

Settle = Callable[["WorkflowRun", str], Awaitable[None]]


class WorkflowRunner:
    def __init__(self, executor: WorkflowExecutor, repo: WorkflowRepository, *, limit: int) -> None:
        self.executor = executor
        self.repo = repo
        self.limiter = trio.CapacityLimiter(max(1, limit))
        self._nursery: trio.Nursery | None = None
        self._scopes: dict[str, trio.CancelScope] = {}
        self._done: dict[str, trio.Event] = {}
        self._idle = trio.Event()
        self._idle.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            try:
                await trio.sleep_forever()
            finally:
                self._nursery = None

    @property
    def active(self) -> list[str]:
        return list(self._scopes)

    def submit(self, run: WorkflowRun) -> None:
        """Start driving ``run`` (a new run, or one resumed after a gate decision)."""
        if self._nursery is None:
            raise EngineStarting(
                "workflow runs are not accepted yet: the engine is starting or stopping"
            )
        scope = trio.CancelScope()
        done = trio.Event()
        self._scopes[run.run_id] = scope
        self._done[run.run_id] = done
        self._idle = trio.Event()
        self._nursery.start_soon(self._drive, run, scope, done, name=f"workflow-run/{run.run_id}")

    def cancel(self, run_id: str) -> bool:
        scope = self._scopes.get(run_id)
        if scope is None:
            return False
        scope.cancel()
        return True

    async def wait_settled(self, run_id: str) -> None:
        """Wait until the task driving ``run_id`` (if any) has finished and recorded its outcome."""
        done = self._done.get(run_id)
        if done is not None:
            await done.wait()

    async def wait_idle(self) -> None:
        """Wait until no run is executing (tests and orderly shutdown)."""
        await self._idle.wait()

    async def _drive(self, run: WorkflowRun, scope: trio.CancelScope, done: trio.Event) -> None:
        try:
            with scope:
                async with self.limiter:
                    await self.executor.drive(run)
            if scope.cancelled_caught:
                await self._settle_cancelled(run.run_id)
        except Exception as exc:
            log.exception("workflow run %s failed unexpectedly", run.run_id)
            await self._settle_error(run.run_id, f"internal error: {type(exc).__name__}")
        finally:
            # A resumed run may already have a newer task registered: only remove our own.
            if self._scopes.get(run.run_id) is scope:
                del self._scopes[run.run_id]
                del self._done[run.run_id]
            done.set()
            if not self._scopes:
                self._idle.set()

    async def _settle_cancelled(self, run_id: str) -> None:
        latest = await self.repo.get_run(run_id)
        if latest is None or latest.terminal:
            return
        now = self.executor.now()
        actions = tuple(
            a if a.status in ("completed", "failed", "skipped") else _skipped(a, now)
            for a in latest.actions
        )
        cancelled = await self.executor.save(
            latest,
            status="cancelled",
            finished_at_ms=now,
            actions=actions,
            awaiting_gate=None,
            detail="cancelled",
        )
        self.executor.publish("workflow.run.cancelled", cancelled, reason="cancelled")

    async def _settle_error(self, run_id: str, detail: str) -> None:
        try:
            latest = await self.repo.get_run(run_id)
            if latest is None or latest.terminal:
                return
            failed = await self.executor.save(
                latest, status="failed", finished_at_ms=self.executor.now(), detail=detail
            )
            self.executor.publish("workflow.run.failed", failed, error=detail)
        except Exception:
            log.exception("could not record the failure of workflow run %s", run_id)


def _skipped(action: ActionRun, now: int) -> ActionRun:
    return attrs.evolve(action, status="skipped", detail="run cancelled", updated_at_ms=now)


__all__ = ["WorkflowRunner"]
