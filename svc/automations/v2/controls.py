"""Operator controls over automation v2 runs and their nodes ("tasks").

Pause, resume, recover and repair a run; retry, continue or requeue one node;
preview what a reset would touch; claim or requeue a node as a backlog task.
Every control changes the stored run through :meth:`V2State.store_run` and, when
work remains, hands the run back to the pool (``_submit``), the same way a gate
decision does: the executor then runs the pending nodes from the completed ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ...errors import Conflict, ValidationFailed
from .gates import V2Gates
from .state import CANCEL_WAIT_S

if TYPE_CHECKING:
    from .records import AutomationV2Run, NodeState

# The records and the DAG helpers are imported on first use (docs/architecture.md,
# "Start-up budget").

UNFINISHED_NODE = ("failed", "cancelled", "skipped")
"""Node statuses a recovery puts back to pending."""


class V2Controls(V2Gates):
    # ------------------------------------------------------------------ the run
    async def pause_run(self, run_id: str, reason: str | None = None) -> AutomationV2Run:
        """Stop a queued or running run without ending it; its running nodes run again (from
        their start) when it resumes."""
        run = await self.require_run(run_id)
        if run.status not in ("queued", "running"):
            raise _conflict(run, "AUTOMATION_V2_RUN_NOT_PAUSABLE", "cannot be paused")
        note = _note(reason, "paused by operator")
        execution = self._executions.get(run_id)
        if execution is not None:
            execution.pause(note)
            done = self._done.get(run_id)
            if done is not None:
                # Bounded: the nodes' session runs stop at their next checkpoint.
                with trio.move_on_after(CANCEL_WAIT_S):
                    await done.wait()
            run = await self.require_run(run_id)
            if run.status == "paused":
                return run
            if run.terminal:
                raise _conflict(run, "AUTOMATION_V2_RUN_NOT_PAUSABLE", "ended before it paused")
        # Not executing (waiting in the pool, or its execution just ended): the executor skips
        # a run that is no longer queued.
        run = await self._store(
            run, status="paused", stop_reason="paused", detail=note, nodes=_pending_again(run)
        )
        self.publish("run.paused", run, status="paused", reason=note)
        return run

    async def resume_run(self, run_id: str, reason: str | None = None) -> AutomationV2Run:
        run = await self.require_run(run_id)
        if run.status != "paused":
            raise _conflict(run, "AUTOMATION_V2_RUN_NOT_PAUSED", "is not paused")
        return await self._requeue(run, _note(reason, "resumed by operator"), "run.resumed")

    async def recover_run(self, run_id: str, reason: str | None = None) -> AutomationV2Run:
        """Run a failed, cancelled or paused run again from its completed nodes."""
        run = await self.require_run(run_id)
        if run.status == "paused":
            return await self.resume_run(run_id, reason)
        stuck = [n for n, s in run.nodes.items() if s.status in UNFINISHED_NODE]
        if run.status not in ("failed", "cancelled") or not stuck:
            raise _conflict(run, "AUTOMATION_V2_RUN_NOT_RECOVERABLE", "has nothing to recover")
        nodes = dict(run.nodes)
        for node_id in stuck:
            nodes[node_id] = _fresh(nodes[node_id], keep_attempts=True)
        run = attrs.evolve(run, nodes=nodes)
        return await self._requeue(
            run, _note(reason, "recovered by operator"), "run.recovered", resetNodes=stuck
        )

    async def repair_run(self, run_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """Guidance for a node (``node_id``, ``guidance``/``prompt``/``instructions``) that its
        next attempt reads, then the node (or every unfinished node) runs again."""
        run = await self.require_run(run_id)
        node_id = _opt_str(body, "node_id", "nodeID", "task_id")
        guidance = _opt_str(body, "guidance", "prompt", "instructions", "reason")
        if node_id is not None:
            self._require_node(run, node_id)
        targets = (
            [node_id]
            if node_id is not None
            else [n for n, s in run.nodes.items() if s.status in UNFINISHED_NODE]
        )
        if not targets:
            raise _conflict(run, "AUTOMATION_V2_RUN_NOT_REPAIRABLE", "has no node to repair")
        self._require_idle(run)
        context = dict(run.context)
        notes = dict(context.get("repair_guidance") or {})
        for target in targets:
            notes[target] = guidance or "repair requested by operator"
        context["repair_guidance"] = notes
        run = attrs.evolve(run, context=context)
        run, reset = self._reset(run, targets, downstream="unfinished", keep_attempts=True)
        run = await self._requeue(
            run, guidance or "repair requested by operator", "run.repaired", resetNodes=reset
        )
        return {"ok": True, "run": run, "repaired_node_ids": targets, "reset_nodes": reset}

    # ------------------------------------------------------------------ one node ("task")
    def reset_preview(self, run: AutomationV2Run, node_id: str) -> dict[str, Any]:
        from .dag import descendants

        self._require_node(run, node_id)
        downstream = descendants(self._deps(run), [node_id])
        reset = [n for n in run.nodes if n == node_id or n in downstream]
        return {
            "ok": True,
            "run_id": run.run_id,
            "node_id": node_id,
            "reset_nodes": reset,
            "preserved_nodes": [n for n in run.nodes if n not in reset],
            "node_statuses": {n: run.nodes[n].status for n in reset},
            "run_active": run.status in ("queued", "running"),
        }

    async def retry_task(self, run_id: str, node_id: str, reason: str | None) -> dict[str, Any]:
        """The node and everything downstream of it run again from scratch."""
        return await self._task(run_id, node_id, reason, "retry", downstream="all", keep=False)

    async def continue_task(self, run_id: str, node_id: str, reason: str | None) -> dict[str, Any]:
        """The node runs again (its attempts counted on), completed downstream nodes stay."""
        return await self._task(
            run_id, node_id, reason, "continue", downstream="unfinished", keep=True
        )

    async def requeue_task(self, run_id: str, node_id: str, reason: str | None) -> dict[str, Any]:
        """The node goes back to the queue with its attempts reset; completed downstream nodes
        stay."""
        return await self._task(
            run_id, node_id, reason, "requeue", downstream="unfinished", keep=False
        )

    async def claim_backlog_task(
        self, run_id: str, node_id: str, body: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Record who works on a pending node. The claim is bookkeeping on the run
        (``runtime_context.backlog_claims``): this runtime's executor still runs the node."""
        run = await self.require_run(run_id)
        state = self._require_node(run, node_id)
        if state.status != "pending":
            raise _conflict(
                run, "AUTOMATION_V2_TASK_NOT_CLAIMABLE", f"has node `{node_id}` {state.status}"
            )
        claims = dict(run.context.get("backlog_claims") or {})
        held = claims.get(node_id)
        claimant = _opt_str(body, "agent_id", "agentID", "claimant", "owner") or "operator"
        if isinstance(held, Mapping) and held.get("claimant") != claimant:
            raise _conflict(
                run, "AUTOMATION_V2_TASK_ALREADY_CLAIMED", f"has node `{node_id}` claimed"
            )
        claim = {"task_id": node_id, "claimant": claimant, "claimed_at_ms": self.now_ms()}
        if isinstance(body.get("lease_ms"), int) and not isinstance(body.get("lease_ms"), bool):
            claim["lease_expires_at_ms"] = claim["claimed_at_ms"] + body["lease_ms"]
        claims[node_id] = claim
        run = await self._store(run, context={**run.context, "backlog_claims": claims})
        self.publish("run.step", run, phase="task_claimed", nodeID=node_id, claimant=claimant)
        return {"ok": True, "task": claim, "run": run}

    async def requeue_backlog_task(
        self, run_id: str, node_id: str, reason: str | None
    ) -> dict[str, Any]:
        """Drop the node's claim; a node that did not finish goes back to the queue."""
        run = await self.require_run(run_id)
        state = self._require_node(run, node_id)
        claims = dict(run.context.get("backlog_claims") or {})
        released = claims.pop(node_id, None)
        run = attrs.evolve(run, context={**run.context, "backlog_claims": claims})
        if state.status in UNFINISHED_NODE:
            result = await self._task_on(run, node_id, reason, "requeue", "unfinished", False)
            return {**result, "released_claim": released}
        run = await self._store(run)
        self.publish("run.step", run, phase="task_requeued", nodeID=node_id)
        return {"ok": True, "run": run, "reset_nodes": [], "released_claim": released}

    # ------------------------------------------------------------------ helpers
    async def require_run(self, run_id: str) -> AutomationV2Run:
        from ..errors import AutomationV2RunNotFound

        run = await self.get_run(run_id)
        if run is None:
            raise AutomationV2RunNotFound(f"run `{run_id}` not found", runID=run_id)
        return run

    async def _task(
        self,
        run_id: str,
        node_id: str,
        reason: str | None,
        action: str,
        *,
        downstream: str,
        keep: bool,
    ) -> dict[str, Any]:
        run = await self.require_run(run_id)
        self._require_node(run, node_id)
        return await self._task_on(run, node_id, reason, action, downstream, keep)

    async def _task_on(
        self,
        run: AutomationV2Run,
        node_id: str,
        reason: str | None,
        action: str,
        downstream: str,
        keep: bool,
    ) -> dict[str, Any]:
        self._require_idle(run)
        run, reset = self._reset(run, [node_id], downstream=downstream, keep_attempts=keep)
        note = _note(reason, f"{action} requested by operator")
        run = await self._requeue(
            run, note, "run.step", phase=f"task_{action}", nodeID=node_id, resetNodes=reset
        )
        return {"ok": True, "run": run, "node_id": node_id, "reset_nodes": reset}

    def _reset(
        self,
        run: AutomationV2Run,
        node_ids: Iterable[str],
        *,
        downstream: str,
        keep_attempts: bool,
    ) -> tuple[AutomationV2Run, list[str]]:
        from .dag import descendants

        targets = set(node_ids)
        below = descendants(self._deps(run), list(targets)) - targets
        if downstream != "all":
            below = {n for n in below if run.nodes[n].status != "completed"}
        reset = [n for n in run.nodes if n in targets or n in below]
        nodes = dict(run.nodes)
        for node_id in reset:
            nodes[node_id] = _fresh(nodes[node_id], keep_attempts=keep_attempts)
        return attrs.evolve(run, nodes=nodes), reset

    async def _requeue(
        self, run: AutomationV2Run, note: str, event: str, **properties: Any
    ) -> AutomationV2Run:
        run = await self._store(
            run,
            status="queued",
            finished_at_ms=None,
            stop_reason=None,
            detail=note,
        )
        self.publish(event, run, status="queued", reason=note, **properties)
        self._submit(run.run_id)
        return run

    async def _store(self, run: AutomationV2Run, **changes: Any) -> AutomationV2Run:
        run = attrs.evolve(run, updated_at_ms=self.now_ms(), **changes)
        await self.store_run(run)
        return run

    def _require_idle(self, run: AutomationV2Run) -> None:
        if run.status in ("queued", "running") or run.run_id in self._executions:
            raise _conflict(run, "AUTOMATION_V2_RUN_ACTIVE", "is still active (pause it first)")

    def _require_node(self, run: AutomationV2Run, node_id: str) -> NodeState:
        from ..errors import AutomationV2RunNotFound

        state = run.nodes.get(node_id)
        if state is None:
            raise AutomationV2RunNotFound(
                f"run `{run.run_id}` has no task `{node_id}`",
                code="AUTOMATION_V2_TASK_NOT_FOUND",
                runID=run.run_id,
                nodeID=node_id,
            )
        return state

    @staticmethod
    def _deps(run: AutomationV2Run) -> dict[str, list[str]]:
        from .spec import effective_deps

        return {n["node_id"]: list(effective_deps(n)) for n in run.snapshot["flow"]["nodes"]}


def _fresh(state: NodeState, *, keep_attempts: bool) -> NodeState:
    from .records import NodeState

    fresh = NodeState(state.node_id, state.agent_id)
    return attrs.evolve(fresh, attempts=state.attempts) if keep_attempts else fresh


def _pending_again(run: AutomationV2Run) -> dict[str, NodeState]:
    """A paused run's interrupted nodes wait to run again."""
    return {
        k: (attrs.evolve(n, status="pending", error=None) if n.status == "running" else n)
        for k, n in run.nodes.items()
    }


def _conflict(run: AutomationV2Run, code: str, what: str) -> Conflict:
    return Conflict(
        f"run `{run.run_id}` {what} (status {run.status})",
        code=code,
        runID=run.run_id,
        runStatus=run.status,
    )


def _note(reason: str | None, default: str) -> str:
    return (reason or "").strip() or default


def _opt_str(body: Mapping[str, Any], *names: str) -> str | None:
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValidationFailed(f"`{name}` must be a string", field=name)
        if value.strip():
            return value.strip()
    return None


__all__ = ["V2Controls"]
