"""The goal runtime's view of automation v2 workflows (``engine.automations``).

Goals never execute workflows themselves: a workflow node's run is an automation v2
run, created with a deterministic id and the definition snapshot the orchestration
version pinned, and executed by the automations domain. This module is the one place
that talks to that domain, so the rest of the package deals in the small records below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .errors import InvalidGoalRequest

# Tenancy is imported on first use: start-up reads no workflow definition
# (docs/architecture.md, "Start-up budget").

if TYPE_CHECKING:
    from .tenancy import TenantContext

TERMINAL_RUN_STATUSES = frozenset({"completed", "failed", "cancelled", "blocked"})
RUN_SETTLED_EVENTS = ("run.completed", "run.failed", "run.cancelled")


@attrs.frozen
class WorkflowDefinition:
    automation_id: str
    name: str
    spec: Mapping[str, Any]
    definition_hash: str
    tenant: TenantContext


@attrs.frozen
class WorkflowRun:
    run_id: str
    automation_id: str
    status: str
    total_tokens: int = 0
    estimated_cost_usd: float = 0.0
    node_outputs: Mapping[str, Any] = attrs.field(factory=dict)
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    trigger_type: str = "manual"
    created_at_ms: int = 0
    updated_at_ms: int = 0
    tenant_context: Mapping[str, Any] = attrs.field(factory=dict)
    raw: Any = attrs.field(default=None, eq=False, repr=False)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_RUN_STATUSES

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "run_id": self.run_id,
            "automation_id": self.automation_id,
            "status": self.status,
            "total_tokens": self.total_tokens,
            "estimated_cost_usd": self.estimated_cost_usd,
            "started_at_ms": self.started_at_ms,
            "finished_at_ms": self.finished_at_ms,
            "node_outputs": dict(self.node_outputs),
            # The automation run record's own fields, as clients of the read models expect.
            "tenant_context": dict(self.tenant_context) or tenant_of_spec({}).to_wire(),
            "trigger_type": self.trigger_type,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
        }
        full = self.raw.to_wire() if hasattr(self.raw, "to_wire") else {}
        for key in (
            "active_session_ids",
            "latest_session_id",
            "checkpoint",
            "workflow_definition_snapshot_hash",
            "prompt_tokens",
            "completion_tokens",
        ):
            if key in full:
                wire[key] = full[key]
        return wire


def tenant_of_spec(spec: Mapping[str, Any]) -> TenantContext:
    """Automations belong to the local tenant unless their metadata names another."""
    from .tenancy import TenantContext

    metadata = spec.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("tenant_context"), Mapping):
        return TenantContext.from_wire(metadata["tenant_context"])
    return TenantContext.from_wire(None)


class Workflows:
    """Adapter over the automations service; every method tolerates its absence."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    @property
    def _automations(self) -> Any:
        return self._engine.automations

    @property
    def available(self) -> bool:
        return self._automations is not None

    async def definition(self, automation_id: str) -> WorkflowDefinition | None:
        if self._automations is None or not automation_id:
            return None
        automation = await self._automations.get_v2(automation_id)
        if automation is None:
            return None
        spec = automation.spec
        return WorkflowDefinition(
            automation_id=automation.automation_id,
            name=getattr(automation, "name", automation_id),
            spec=spec,
            definition_hash=self._automations.definition_hash(automation),
            tenant=tenant_of_spec(spec),
        )

    def known_automation_ids(self) -> set[str]:
        """Every automation this runtime defines (legacy envelopes naming none of them are
        foreign)."""
        service = getattr(self._automations, "v2", None)
        listing = getattr(service, "all_automations", None)
        return {a.automation_id for a in listing()} if listing is not None else set()

    def hash_of(self, spec: Mapping[str, Any]) -> str:
        return str(self._automations.definition_hash(spec))

    async def start_run(
        self,
        *,
        run_id: str,
        automation_id: str,
        snapshot: Mapping[str, Any],
        trigger_type: str,
        trigger_reason: str,
        context: Mapping[str, Any],
    ) -> WorkflowRun:
        if self._automations is None:
            raise InvalidGoalRequest("automation workflows are not available in this engine")
        run = await self._automations.create_v2_run(
            automation_id,
            run_id=run_id,
            trigger_type=trigger_type,
            trigger_reason=trigger_reason,
            context=dict(context),
            snapshot=dict(snapshot),
        )
        return _view(run)

    async def run(self, run_id: str) -> WorkflowRun | None:
        if self._automations is None:
            return None
        run = await self._automations.get_v2_run(run_id)
        return None if run is None else _view(run)

    async def cancel(self, run_id: str, reason: str) -> bool:
        if self._automations is None:
            return False
        return bool(await self._automations.cancel_v2_run(run_id, reason))


def _view(run: Any) -> WorkflowRun:
    usage = getattr(run, "usage", None) or {}
    return WorkflowRun(
        run_id=run.run_id,
        automation_id=run.automation_id,
        status=str(run.status),
        total_tokens=int(usage.get("total_tokens") or 0),
        estimated_cost_usd=float(usage.get("estimated_cost_usd") or 0.0),
        node_outputs=dict(getattr(run, "node_outputs", None) or {}),
        started_at_ms=getattr(run, "started_at_ms", None),
        finished_at_ms=getattr(run, "finished_at_ms", None),
        trigger_type=str(getattr(run, "trigger_type", None) or "manual"),
        created_at_ms=int(getattr(run, "created_at_ms", None) or 0),
        updated_at_ms=int(getattr(run, "updated_at_ms", None) or 0),
        tenant_context=tenant_of_spec(getattr(run, "snapshot", None) or {}).to_wire(),
        raw=run,
    )


__all__ = [
    "RUN_SETTLED_EVENTS",
    "TERMINAL_RUN_STATUSES",
    "WorkflowDefinition",
    "WorkflowRun",
    "Workflows",
    "tenant_of_spec",
]
