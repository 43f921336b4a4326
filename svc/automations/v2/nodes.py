"""One automation v2 run's nodes: executing a node as a session run, its inputs and its usage.

The run-level driving (waves, gates, the end) is :class:`~.executor.V2Execution`,
which builds on this layer.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from supervisors import BudgetLimits, BudgetScope

from ...errors import SvcError
from ...providers.types import ProviderError
from ..routing import route_model
from ..session_runs import StepRequest, run_step
from .prompt import NodeInput, node_prompt, node_system
from .records import AutomationV2Run, NodeState
from .spec import effective_deps
from .tools import expand, node_scope

if TYPE_CHECKING:
    from .state import V2State

log = logging.getLogger("svc.automations")

DETAIL_LIMIT = 500


def is_gate(node: Mapping[str, Any]) -> bool:
    gate = node.get("gate")
    return node.get("stage_kind") == "approval" or (
        isinstance(gate, Mapping) and bool(gate.get("required"))
    )


def run_limits(spec: Mapping[str, Any]) -> BudgetLimits:
    execution = spec.get("execution") or {}
    return BudgetLimits(
        max_tokens=execution.get("max_total_tokens"),
        max_tool_calls=execution.get("max_total_tool_calls"),
        max_cost_usd=execution.get("max_total_cost_usd"),
        max_duration_ms=execution.get("max_total_runtime_ms"),
    )


class NodeExecution:
    """The state of one run being executed, and how one node of it runs."""

    def __init__(self, service: V2State, run: AutomationV2Run) -> None:
        self.service = service
        self.run = run
        spec = run.snapshot
        self.spec = spec
        self.agents = {a["agent_id"]: a for a in spec["agents"]}
        self.nodes = {n["node_id"]: n for n in spec["flow"]["nodes"]}
        self.order = [n["node_id"] for n in spec["flow"]["nodes"]]
        self.deps = {n["node_id"]: effective_deps(n) for n in spec["flow"]["nodes"]}
        self.max_parallel = int((spec.get("execution") or {}).get("max_parallel_agents") or 1)
        self.budget = BudgetScope(run_limits(spec), name=f"automation-v2/{run.run_id}")
        self.cancel_reason: str | None = None
        self.pause_reason: str | None = None
        """Set when an operator pauses the run: it stops like a cancel but does not end."""
        self._progress = trio.Event()

    def pause(self, reason: str) -> None:
        """Stop the run's nodes as :meth:`cancel` does; the run then waits as ``paused``."""
        if self.cancel_reason is None:
            self.pause_reason = reason
            self.budget.cancel(reason)

    def cancel(self, reason: str) -> None:
        """Cancel the run: every node's session run stops at its next checkpoint."""
        # A cancel overrides a pause still under way: the run ends.
        self.pause_reason = None
        if self.cancel_reason is None:
            self.cancel_reason = reason
        self.budget.cancel(reason)

    async def _save(self, **changes: Any) -> None:
        if changes:
            self.run = attrs.evolve(self.run, updated_at_ms=self.service.now_ms(), **changes)
        await self.service.store_run(self.run)

    def _node_state(self, node_id: str) -> NodeState:
        return self.run.nodes[node_id]

    async def _set_node(self, state: NodeState) -> None:
        self.run = attrs.evolve(self.run.with_node(state), updated_at_ms=self.service.now_ms())
        await self.service.store_run(self.run)

    async def _execute_node(self, node_id: str) -> None:
        node = self.nodes[node_id]
        agent = self.agents[node["agent_id"]]
        attempts_allowed = int((node.get("retry_policy") or {}).get("max_attempts") or 1)
        scope = node_scope(agent, node)
        allow = expand(scope, self.service.engine.tools.names())
        state = self._node_state(node_id)
        try:
            model = route_model(
                self.service.engine.providers,
                agent.get("model_policy"),
                orchestrated=False,
                prefix=f"agents.{agent['agent_id']}.model_policy",
            )
        except (ProviderError, SvcError) as exc:
            await self._node_failed(
                state, f"no model for agent `{agent['agent_id']}`: {exc.message}"
            )
            return
        while True:
            now = self.service.now_ms()
            state = attrs.evolve(
                state,
                status="running",
                attempts=state.attempts + 1,
                started_at_ms=now,
                finished_at_ms=None,
                error=None,
                allowed_tools=allow,
                model={
                    "provider_id": model.provider_id,
                    "model_id": model.model_id,
                    "source": model.source,
                },
            )
            await self._set_node(state)
            self.service.publish(
                "run.step",
                self.run,
                phase="node_started",
                nodeID=node_id,
                agentID=agent["agent_id"],
                attempt=state.attempts,
                providerID=model.provider_id,
                modelID=model.model_id,
                modelSource=model.source,
                allowedTools=list(allow),
            )
            node_budget = self.budget.child(
                BudgetLimits(max_tool_calls=node.get("max_tool_calls")),
                name=f"automation-v2/{self.run.run_id}/{node_id}",
            )
            step = StepRequest(
                title=f"Automation {self.spec['name']} / {node_id}",
                prompt=node_prompt(
                    self.spec,
                    node,
                    automation_id=self.run.automation_id,
                    run_id=self.run.run_id,
                    context=self.run.context,
                    inputs=self._inputs(node_id),
                    rework_note=self._rework_note(node_id),
                ),
                system=node_system(self.spec, agent),
                provider_id=model.provider_id,
                model_id=model.model_id,
                allow=allow,
                deny=scope.deny,
                directory=self.service.directory_for(self.spec),
                source_kind="automation_v2",
                source_metadata={
                    "automationID": self.run.automation_id,
                    "runID": self.run.run_id,
                    "nodeID": node_id,
                },
                metadata={
                    "automationID": self.run.automation_id,
                    "automationRunID": self.run.run_id,
                    "nodeID": node_id,
                },
                budget=node_budget,
                timeout_ms=node.get("timeout_ms"),
                agent_id=agent["agent_id"],
            )

            async def on_session(
                session_id: str, session_run_id: str, node_id: str = node_id
            ) -> None:
                current = self._node_state(node_id)
                await self._set_node(
                    attrs.evolve(current, session_id=session_id, session_run_id=session_run_id)
                )

            try:
                result = await run_step(self.service.engine, step, on_session=on_session)
            except (ProviderError, SvcError) as exc:
                state = self._node_state(node_id)
                if state.attempts < attempts_allowed:
                    continue
                await self._node_failed(state, exc.message)
                return
            session_run = result.run
            usage = session_run.usage
            state = attrs.evolve(
                self._node_state(node_id),
                usage={
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "total_tokens": usage.total_tokens,
                    "estimated_cost_usd": round(usage.cost_usd, 8),
                },
            )
            self._add_usage(usage)
            if session_run.status == "completed":
                state = attrs.evolve(
                    state,
                    status="completed",
                    output=result.text,
                    finished_at_ms=self.service.now_ms(),
                )
                await self._set_node(state)
                self.service.publish(
                    "run.step",
                    self.run,
                    phase="node_completed",
                    nodeID=node_id,
                    agentID=agent["agent_id"],
                    sessionID=result.session_id,
                    sessionRunID=session_run.id,
                    outputChars=len(result.text),
                )
                return
            if session_run.status == "cancelled" and (self.cancel_reason or self.budget.cancelled):
                reason = self.cancel_reason or self._budget_reason()
                await self._set_node(
                    attrs.evolve(
                        state,
                        status="cancelled",
                        error=reason,
                        finished_at_ms=self.service.now_ms(),
                    )
                )
                return
            message = session_run.error_message or f"the step's run ended {session_run.status}"
            if state.attempts < attempts_allowed:
                await self._set_node(attrs.evolve(state, error=message))
                continue
            await self._node_failed(state, message)
            return

    async def _node_failed(self, state: NodeState, reason: str) -> None:
        state = attrs.evolve(
            state,
            status="failed",
            error=reason[:DETAIL_LIMIT],
            finished_at_ms=self.service.now_ms(),
        )
        await self._set_node(state)
        self.service.publish(
            "run.step",
            self.run,
            phase="node_failed",
            nodeID=state.node_id,
            agentID=state.agent_id,
            reason=state.error,
            attempts=state.attempts,
        )

    def _add_usage(self, usage: Any) -> None:
        current = dict(self.run.usage)
        current["prompt_tokens"] = current.get("prompt_tokens", 0) + usage.prompt_tokens
        current["completion_tokens"] = current.get("completion_tokens", 0) + usage.completion_tokens
        current["total_tokens"] = current.get("total_tokens", 0) + usage.total_tokens
        current["estimated_cost_usd"] = round(
            current.get("estimated_cost_usd", 0.0) + usage.cost_usd, 8
        )
        self.run = attrs.evolve(self.run, usage=current)

    def _inputs(self, node_id: str) -> list[NodeInput]:
        """Outputs of the node's dependencies (through gates, which pass their inputs on)."""
        aliases = {
            ref["from_step_id"]: ref["alias"] for ref in self.nodes[node_id].get("input_refs") or ()
        }
        inputs: list[NodeInput] = []
        seen: set[str] = set()

        def collect(dep: str, alias: str) -> None:
            if dep in seen:
                return
            seen.add(dep)
            if is_gate(self.nodes[dep]):
                for upstream in self.deps[dep]:
                    collect(upstream, upstream)
                return
            state = self.run.nodes[dep]
            inputs.append(NodeInput(dep, alias, state.output or ""))

        for dep in self.deps[node_id]:
            collect(dep, aliases.get(dep, dep))
        return inputs

    def _rework_note(self, node_id: str) -> str | None:
        # An operator's repair guidance (POST .../runs/{id}/repair) comes first.
        guidance = (self.run.context.get("repair_guidance") or {}).get(node_id)
        if isinstance(guidance, str) and guidance:
            return guidance
        for entry in reversed(self.run.gate_history):
            if entry.get("decision") == "rework" and node_id in (entry.get("reset_nodes") or ()):
                return str(entry.get("reason") or "rework requested")
        return None

    def _budget_reason(self) -> str:
        exhaustion = self.budget.exhausted or self.budget.cancelled_by
        if exhaustion is not None:
            return f"budget exhausted: {exhaustion.limit}"
        return self.budget.cancel_reason or "cancelled"


__all__ = ["DETAIL_LIMIT", "NodeExecution", "is_gate", "run_limits"]
