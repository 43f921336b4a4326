"""How an instance's session is bound to the instance: the terms its runs run under.

When an instance actor starts it binds its session (``engine.sessions.bind``)
with a :class:`~svc.sessions.SessionBinding` built here from the instance's
record: its budget scope (so a run's scope is a child of the instance's, and
charging the run charges the instance and its mission), its capability gate,
its template's tool lists, its system prompt and the ``agentTeam`` metadata.
Every prompt of that session, whoever sends it, then runs as the instance; the
sessions service applies the binding and never calls back into teams.

The gate's reports (a refusal, a push awaiting approval) are made by
:class:`GateReports`, which knows the instance's identity and nothing of its
actor: it finds the run a call belongs to from the store (a session runs one
run at a time, and the gate is asked from inside that run).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..tools import matches_any
from . import events as ev
from .capabilities import CapabilityGate
from .templates import normalize_tool_name

if TYPE_CHECKING:
    from supervisors import BudgetScope

    from ..sessions import SessionBinding, ToolGate
    from .context import RuntimePolicy, TeamsContext
    from .records import Instance


@attrs.frozen(eq=False)
class GateReports:
    """The capability gate's hooks for one instance (no actor state: identity and services)."""

    ctx: TeamsContext
    instance_id: str
    mission_id: str
    session_id: str

    async def running_run(self) -> str | None:
        """The run the gate was asked from: the session's one running run."""
        runs = await self.ctx.engine.sessions.repo.runs(
            session_id=self.session_id, status="running", limit=1
        )
        return runs[0].id if runs else None

    async def denied(self, tool: str, reason: str) -> None:
        self.ctx.events.publish(
            ev.CAPABILITY_DENIED,
            session_id=self.session_id,
            run_id=await self.running_run(),
            mission_id=self.mission_id,
            instance_id=self.instance_id,
            tool=tool,
            reason=reason,
        )

    async def approve_push(self, command: str, args: Mapping[str, Any]) -> str | None:
        """None when the push may run, else why not (the ``git_push`` permission rules decide;
        ``ask`` becomes a pending request the call waits for)."""
        permissions = self.ctx.engine.permissions
        action = permissions.evaluate("git_push", session_id=self.session_id)
        if action == "allow":
            return None
        if action == "deny":
            return "git push denied by policy rule"
        outcome, request = await permissions.request(
            tool="git_push",
            permission="git_push",
            args={"command": command},
            session_id=self.session_id,
            run_id=await self.running_run(),
        )
        if outcome == "approved":
            return None
        if outcome == "denied":
            return f"git push denied by the user (approvalID={request.id})"
        return f"git push approval timed out (approvalID={request.id})"


def capability_gate(
    ctx: TeamsContext, instance: Instance, runtime: RuntimePolicy
) -> CapabilityGate:
    reports = GateReports(ctx, instance.id, instance.mission_id, instance.session_id)
    workspace = Path(instance.workspace_root) if instance.workspace_root else ctx.engine.workspace
    return CapabilityGate(
        instance.capabilities,
        workspace=workspace,
        push_requires_approval=runtime.push_requires_approval,
        approve_push=reports.approve_push,
        on_denied=reports.denied,
    )


def instance_binding(
    instance: Instance, scope: BudgetScope, gate: CapabilityGate
) -> SessionBinding:
    """The terms of every run of ``instance``'s session (see the module docstring)."""
    from ..sessions import SessionBinding

    caps = instance.capabilities
    # Both spellings: registry names are matched as written, the gate normalises.
    allow = (
        tuple(dict.fromkeys([*caps.tool_allowlist, *caps.allow_patterns]))
        if caps.allow_patterns
        else None
    )
    return SessionBinding(
        budget=scope,
        gates=(gate,),
        tool_allowlist=allow,
        tool_denylist=tuple(dict.fromkeys([*caps.tool_denylist, *caps.deny_patterns])),
        narrow=allowlist_gate,
        system=instance.system_prompt or None,
        agent_id=instance.id,
        metadata={
            "agentTeam": {
                "missionID": instance.mission_id,
                "instanceID": instance.id,
                "role": instance.role,
                "templateID": instance.template_id,
            }
        },
    )


def allowlist_gate(patterns: tuple[str, ...]) -> ToolGate:
    """A gate enforcing a caller's own allowlist inside the template's."""
    normalized = [normalize_tool_name(p) for p in patterns]

    async def gate(tool: str, args: Mapping[str, Any]) -> str | None:
        if matches_any(normalized, normalize_tool_name(tool)):
            return None
        return f"tool `{tool}` is not allowed in this run"

    return gate


__all__ = ["GateReports", "allowlist_gate", "capability_gate", "instance_binding"]
