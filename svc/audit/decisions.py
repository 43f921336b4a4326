"""The seam through which deciding domains report policy decisions.

A domain that allows, denies or asks for approval (the tool dispatcher, permission
asks, the spawn gate, automation governance, MCP capability requests, the incident
publish gate) holds an optional :class:`DecisionSink` and calls it once per decision.
The incident monitor wires its bounded store in (``svc.incidents.policy_decisions``);
an engine without it leaves the sink ``None`` and nothing is recorded. Calling a sink
never waits and never raises: a decision is not delayed by its own bookkeeping.
"""

from __future__ import annotations

from typing import Literal, Protocol

Effect = Literal["allow", "deny", "approval_required"]


class DecisionSink(Protocol):
    def __call__(
        self,
        *,
        domain: str,
        effect: Effect,
        subject: str,
        actor_id: str | None = None,
        scope_id: str | None = None,
        code: str | None = None,
        reason: str | None = None,
        approval_id: str | None = None,
        tenant_id: str | None = None,
        workspace_id: str | None = None,
    ) -> None: ...


__all__ = ["DecisionSink", "Effect"]
