"""Session bindings: the terms every run of one session runs under, set by its owner.

A domain that owns a session (agent teams: an instance's session) binds it when
the owner comes to life and unbinds it when the owner ends. From then on every
prompt of that session, whoever sends it (the owner itself, ``POST
/session/{id}/prompt_async``, a routine), runs under the binding: its budget
scope is the run's parent budget (so each step, token, tool call and second the
run spends is charged to the owner), its gates are asked before every tool call,
its tool lists shape the run's view, its system prompt and metadata are added.

The binding is data the owner hands over; the sessions service reads it and
never calls back into the owner. A request that brings its own budget is
already governed by whoever built it and runs as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from supervisors import BudgetScope

from .requests import RunRequest, ToolGate


@attrs.frozen(eq=False)
class SessionBinding:
    """What every run of a bound session runs under (see the module docstring)."""

    budget: BudgetScope
    """The owner's scope: each run's scope is its child."""
    gates: tuple[ToolGate, ...] = ()
    """Asked before every tool call, ahead of the request's own gates."""
    tool_allowlist: tuple[str, ...] | None = None
    """The owner's allowlist (None: the request's own, if any, applies as usual)."""
    tool_denylist: tuple[str, ...] = ()
    narrow: Callable[[tuple[str, ...]], ToolGate] | None = None
    """With an owner's allowlist, the gate that holds a request's own allowlist inside it."""
    system: str | None = None
    """System instructions put before the request's own."""
    agent_id: str | None = None
    """The run's agent id when the request names none."""
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    """Added to the run's metadata (over the request's keys of the same name)."""

    def apply(self, request: RunRequest) -> RunRequest:
        """``request`` as a run under this binding (unchanged if it brings its own budget)."""
        if request.budget is not None:
            return request
        gates = [*self.gates, *request.gates]
        allow = request.tool_allowlist
        if self.tool_allowlist is not None:
            allow = self.tool_allowlist
            if request.tool_allowlist is not None and self.narrow is not None:
                gates.append(self.narrow(request.tool_allowlist))
        deny = tuple(dict.fromkeys([*self.tool_denylist, *request.tool_denylist]))
        system = "\n".join(s for s in (self.system, request.system) if s) or None
        return attrs.evolve(
            request,
            budget=self.budget,
            tool_allowlist=allow,
            tool_denylist=deny,
            gates=tuple(gates),
            system=system,
            agent_id=request.agent_id or self.agent_id,
            metadata={**request.metadata, **self.metadata},
        )


__all__ = ["SessionBinding"]
