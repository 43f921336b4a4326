"""Human decisions at a run's approval gates (``POST /automations/v2/runs/{id}/gate``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ...errors import Conflict, Forbidden, ValidationFailed
from ..principal import HUMAN, Principal
from .runs import V2Runs

if TYPE_CHECKING:
    from .records import AutomationV2Run

# The spec parser, the records, the schedule math and the executor are imported on first
# use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class V2Gates(V2Runs):
    async def decide_gate(
        self, run_id: str, decision: str, *, reason: str | None = None, principal: Principal = HUMAN
    ) -> AutomationV2Run:
        from ..errors import AutomationV2RunNotFound
        from .dag import descendants
        from .executor import is_gate
        from .records import NodeState
        from .spec import effective_deps

        if principal.is_agent:
            raise Forbidden(
                "gate decisions require a human actor", code="AUTOMATION_V2_GATE_REQUIRES_HUMAN"
            )
        run = await self.get_run(run_id)
        if run is None:
            raise AutomationV2RunNotFound(f"run `{run_id}` not found", runID=run_id)
        if run.status != "awaiting_approval" or not run.awaiting_gate:
            last = run.gate_history[-1]["decision"] if run.gate_history else None
            raise Conflict(
                f"run `{run_id}` is not awaiting approval (status {run.status})",
                code="AUTOMATION_V2_RUN_NOT_AWAITING_APPROVAL",
                runID=run_id,
                runStatus=run.status,
                winningDecision=last,
            )
        gate = run.awaiting_gate
        node_id = gate["node_id"]
        if decision not in gate.get("decisions", ()):
            raise ValidationFailed(
                f"`decision` must be one of {', '.join(gate.get('decisions', ()))}",
                field="decision",
            )
        now = self.now_ms()
        note = (reason or "").strip() or f"{decision} by operator"
        spec_nodes = {n["node_id"]: n for n in run.snapshot["flow"]["nodes"]}
        deps = {n: effective_deps(spec_nodes[n]) for n in spec_nodes}
        entry: dict[str, Any] = {
            "node_id": node_id,
            "decision": decision,
            "reason": note,
            "decided_at_ms": now,
            "decided_by": principal.kind,
        }
        state = run.nodes[node_id]
        if decision == "approve":
            run = run.with_node(
                attrs.evolve(
                    state,
                    status="completed",
                    decision="approve",
                    finished_at_ms=now,
                    output=f"Approved: {note}",
                )
            )
        elif decision == "rework":
            targets = list(gate.get("rework_targets") or ()) or [
                d for d in deps[node_id] if not is_gate(spec_nodes[d])
            ]
            reset = set(targets) | descendants(deps, targets)
            for reset_id in reset:
                run = run.with_node(NodeState(reset_id, run.nodes[reset_id].agent_id))
            entry["reset_nodes"] = sorted(reset)
        else:
            run = run.with_node(
                attrs.evolve(
                    state, status="cancelled", decision="cancel", finished_at_ms=now, error=note
                )
            )
        run = attrs.evolve(
            run, gate_history=(*run.gate_history, entry), awaiting_gate=None, updated_at_ms=now
        )
        if decision == "cancel":
            nodes = {
                k: (attrs.evolve(n, status="cancelled", error=note) if n.status == "pending" else n)
                for k, n in run.nodes.items()
            }
            run = attrs.evolve(
                run,
                nodes=nodes,
                status="cancelled",
                finished_at_ms=now,
                stop_reason="gate_cancelled",
                detail=note,
            )
            await self.store_run(run)
            self.publish(
                "run.step",
                run,
                phase="gate_decided",
                nodeID=node_id,
                decision=decision,
                reason=note,
            )
            self.publish("run.cancelled", run, status="cancelled", reason=note, finishedAtMs=now)
            return run
        run = attrs.evolve(run, status="queued")
        await self.store_run(run)
        self.publish(
            "run.step",
            run,
            phase="gate_decided",
            nodeID=node_id,
            decision=decision,
            reason=note,
            resetNodes=entry.get("reset_nodes"),
        )
        self._submit(run.run_id)
        return run


__all__ = ["V2Gates"]
