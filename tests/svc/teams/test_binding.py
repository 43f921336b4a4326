"""An instance's session binding: the terms every run of the session gets, applied by sessions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import svc
from supervisors import BudgetScope
from svc.sessions import RunRequest, SessionBinding
from svc.teams.binding import allowlist_gate

PARTS = ({"type": "text", "text": "go"},)


async def refuse_nothing(tool: str, args: Mapping[str, Any]) -> str | None:
    return None


def team_binding(scope: BudgetScope) -> SessionBinding:
    return SessionBinding(
        budget=scope,
        gates=(refuse_nothing,),
        tool_allowlist=("read", "glob"),
        tool_denylist=("bash",),
        narrow=allowlist_gate,
        system="You are a worker.",
        agent_id="ins_1",
        metadata={"agentTeam": {"instanceID": "ins_1"}},
    )


async def test_a_prompt_runs_under_the_binding_and_its_own_allowlist_narrows_the_owners() -> None:
    scope = BudgetScope(name="instance/ins_1")
    request = RunRequest(
        parts=PARTS,
        tool_allowlist=("Glob", "write"),
        tool_denylist=("edit", "bash"),
        system="Be brief.",
        metadata={"agentTeam": "spoofed", "client": "ui"},
    )
    shaped = team_binding(scope).apply(request)
    assert shaped.budget is scope
    # The view is the owner's; the request's own list is a gate inside it.
    assert shaped.tool_allowlist == ("read", "glob")
    assert shaped.tool_denylist == ("bash", "edit")
    assert shaped.gates[0] is refuse_nothing and len(shaped.gates) == 2
    narrow = shaped.gates[1]
    assert await narrow("glob", {}) is None
    assert await narrow("read", {}) == "tool `read` is not allowed in this run"
    assert shaped.system == "You are a worker.\nBe brief."
    assert shaped.agent_id == "ins_1"
    assert shaped.metadata == {"agentTeam": {"instanceID": "ins_1"}, "client": "ui"}


async def test_a_request_that_brings_its_own_budget_runs_as_it_is() -> None:
    own = RunRequest(parts=PARTS, budget=BudgetScope(name="elsewhere"))
    assert team_binding(BudgetScope(name="instance/ins_1")).apply(own) is own


async def test_an_owner_unbinds_only_its_own_binding(engine: svc.Engine) -> None:
    first = team_binding(BudgetScope(name="instance/ins_1"))
    restarted = team_binding(BudgetScope(name="instance/ins_1"))
    engine.sessions.bind("s1", first)
    # A restarted instance binds again before its predecessor's cleanup unbinds.
    engine.sessions.bind("s1", restarted)
    engine.sessions.unbind("s1", first)
    assert engine.sessions.binding("s1") is restarted
    engine.sessions.unbind("s1", restarted)
    assert engine.sessions.binding("s1") is None
