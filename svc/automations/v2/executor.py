"""Executing one automation v2 run: the flow DAG, node by node, as session runs.

A node starts as soon as every node it depends on has completed, at most
``execution.max_parallel_agents`` at a time (nodes of one dependency wave run
side by side; a later wave starts as its inputs become ready). Each node is a
session run with only its agent's tools and model, and its prompt carries the
outputs of the nodes it depends on. A node that fails (after its
``retry_policy.max_attempts``) fails the run; the nodes that depend on it are
skipped, independent branches still finish.

Approval nodes (``stage_kind: approval`` or a required ``gate``) are human
gates: when nothing else can run and a gate is ready, the run stops in
``awaiting_approval`` until a decision (approve, rework, cancel) resumes it.

The whole run is one :class:`~supervisors.BudgetScope` (limits from
``execution.max_total_*``); every node's session run is a child of it, so
cancelling the run or exhausting its budget stops every node at once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import attrs
import trio

from . import dag
from .nodes import DETAIL_LIMIT, NodeExecution, is_gate, run_limits
from .records import AutomationV2Run

if TYPE_CHECKING:
    pass

log = logging.getLogger("svc.automations")


class V2Execution(NodeExecution):
    """Drives one run until it ends or waits at a gate. Created by the v2 service."""

    async def execute(self) -> AutomationV2Run:
        """Run to the end or to a gate. An outer cancellation (engine stopping) leaves the
        record as it is: at the next start the run resumes from its completed nodes."""
        now = self.service.now_ms()
        await self._save(
            status="running", started_at_ms=self.run.started_at_ms or now, awaiting_gate=None
        )
        self.service.publish(
            "run.started",
            self.run,
            startedAtMs=self.run.started_at_ms,
            triggerType=self.run.trigger_type,
            status="running",
        )
        waiting = False
        with self.budget:
            waiting = await self._drive()
        if self.pause_reason is not None:
            await self._paused(self.pause_reason)
            return self.run
        if waiting and self.cancel_reason is None:
            return self.run
        await self._finish()
        return self.run

    async def _drive(self) -> bool:
        """Schedule nodes until nothing can run; True when the run stopped at a gate.

        Ready nodes start in declared order while fewer than ``max_parallel``
        are in flight, so which nodes share a slot is deterministic.
        """
        in_flight: set[str] = set()
        async with trio.open_nursery() as nursery:
            while True:
                await self._skip_unreachable()
                done = {n for n, s in self.run.nodes.items() if s.status == "completed"}
                started = {
                    n for n, s in self.run.nodes.items() if s.status != "pending"
                } | in_flight
                ready = dag.ready(self.order, self.deps, done, started)
                for node_id in ready:
                    if len(in_flight) >= self.max_parallel:
                        break
                    if not is_gate(self.nodes[node_id]):
                        in_flight.add(node_id)
                        nursery.start_soon(self._run_node, node_id, in_flight)
                if not in_flight:
                    gates = [n for n in ready if is_gate(self.nodes[n])]
                    if gates:
                        await self._await_gate(gates[0])
                        return True
                    return False
                await self._progress.wait()
                self._progress = trio.Event()

    async def _skip_unreachable(self) -> None:
        """Pending nodes downstream of a node that did not complete can never run."""
        dead = {
            n for n, s in self.run.nodes.items() if s.status in ("failed", "skipped", "cancelled")
        }
        if not dead:
            return
        for node_id in dag.descendants(self.deps, dead):
            state = self.run.nodes[node_id]
            if state.status == "pending":
                reason = "an upstream step did not complete"
                await self._set_node(attrs.evolve(state, status="skipped", error=reason))
                self.service.publish(
                    "run.step", self.run, phase="node_skipped", nodeID=node_id, reason=reason
                )

    async def _run_node(self, node_id: str, in_flight: set[str]) -> None:
        try:
            await self._execute_node(node_id)
        except Exception:
            # A bug must not leave the run "running" forever: the node fails
            # (and with it the run), the error is logged.
            log.exception(
                "automation v2 run %s: step %s failed unexpectedly", self.run.run_id, node_id
            )
            await self._node_failed(
                self._node_state(node_id), "internal error while running the step"
            )
        finally:
            in_flight.discard(node_id)
            self._progress.set()

    async def _await_gate(self, node_id: str) -> None:
        node = self.nodes[node_id]
        gate = node.get("gate") or {}
        now = self.service.now_ms()
        awaiting = {
            "node_id": node_id,
            "title": node.get("title") or node["objective"],
            "instructions": gate.get("instructions") or node["objective"],
            "decisions": list(gate.get("decisions") or ("approve", "rework", "cancel")),
            "rework_targets": list(gate.get("rework_targets") or ()),
            "requested_at_ms": now,
            "upstream_node_ids": list(self.deps[node_id]),
        }
        state = attrs.evolve(
            self._node_state(node_id), status="awaiting_approval", started_at_ms=now
        )
        self.run = self.run.with_node(state)
        await self._save(status="awaiting_approval", awaiting_gate=awaiting)
        self.service.publish(
            "approval.required",
            self.run,
            nodeID=node_id,
            gate=awaiting,
            reason=f"approval required at step {node_id}",
        )

    async def _paused(self, reason: str) -> None:
        """An operator paused the run: nodes the pause interrupted (and those skipped because
        of them) wait to run again; a node that failed stays failed, so its dependants are
        skipped again on resume."""
        nodes = {
            k: (
                attrs.evolve(n, status="pending", error=None, finished_at_ms=None)
                if n.status in ("running", "cancelled", "skipped")
                else n
            )
            for k, n in self.run.nodes.items()
        }
        await self._save(status="paused", nodes=nodes, stop_reason="paused", detail=reason)
        self.service.publish("run.paused", self.run, status="paused", reason=reason)

    async def _finish(self) -> None:
        now = self.service.now_ms()
        nodes = self.run.nodes.values()
        exhausted = self.budget.exhausted or self.budget.cancelled_by
        # Nodes still pending when the run stops (cancelled, budget spent) never ran.
        for state in list(nodes):
            if state.status in ("pending", "running", "awaiting_approval"):
                self.run = self.run.with_node(
                    attrs.evolve(
                        state, status="cancelled", error=self.cancel_reason or self._budget_reason()
                    )
                )
        if self.cancel_reason is not None and exhausted is None:
            await self._save(
                status="cancelled",
                finished_at_ms=now,
                stop_reason=self.cancel_reason,
                detail=self.cancel_reason,
                awaiting_gate=None,
            )
            self.service.publish(
                "run.cancelled",
                self.run,
                status="cancelled",
                reason=self.cancel_reason,
                finishedAtMs=now,
            )
            return
        failed = [
            n.node_id
            for n in self.run.nodes.values()
            if n.status in ("failed", "cancelled", "skipped")
        ]
        if exhausted is not None or failed:
            reason = (
                self._budget_reason()
                if exhausted is not None
                else "; ".join(
                    f"{n}: {self.run.nodes[n].error}"
                    for n in failed
                    if self.run.nodes[n].status == "failed"
                )
            )
            await self._save(
                status="failed",
                finished_at_ms=now,
                detail=(reason or "a step failed")[:DETAIL_LIMIT],
                stop_reason="budget_exhausted" if exhausted is not None else "node_failed",
            )
            self.service.publish(
                "run.failed",
                self.run,
                status="failed",
                reason=self.run.detail,
                finishedAtMs=now,
                failedNodes=failed,
                usage=dict(self.run.usage),
            )
            return
        await self._save(status="completed", finished_at_ms=now, detail="automation run completed")
        self.service.publish(
            "run.completed",
            self.run,
            status="completed",
            finishedAtMs=now,
            usage=dict(self.run.usage),
            nodeIDs=list(self.order),
        )


__all__ = ["V2Execution", "is_gate", "run_limits"]
