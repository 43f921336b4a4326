"""Capability enforcement on real runs: the registry view, the gate, and push approvals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from svc.events import Event
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import run_events, wait_for_event
from tests.svc.teams.conftest import OPEN_POLICY


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def spawn_with(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    capabilities: dict[str, Any],
    prompt: str = "go",
    policy: dict[str, Any] | None = None,
) -> dict[str, Any]:
    write_policy(policy or OPEN_POLICY)
    write_template({"templateID": "agent", "role": "worker", "capabilities": capabilities})
    response = await client.post("/agent-team/spawn", json={"role": "worker", "prompt": prompt})
    assert response.json()["ok"] is True, response.text
    return response.json()


async def denials(engine: svc.Engine, run_id: str) -> list[Event]:
    return [e for e in await run_events(engine, run_id) if e.type == "agent_team.capability.denied"]


async def test_the_allowlist_shapes_the_view_and_a_call_outside_it_is_a_capability_denial(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("bash", {"command": "touch hacked"}, id="b1")), Turn.reply("ok")
    )
    spawned = await spawn_with(
        client,
        write_policy,
        write_template,
        {"tool_allowlist": ["Read"], "tool_denylist": ["glob"], "fs_scopes": {"read": ["."]}},
    )
    await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    assert {t["function"]["name"] for t in fake_model.requests[0].body["tools"]} == {"read"}
    denied = await denials(engine, spawned["runID"])
    assert [(e.properties["tool"], e.properties["instanceID"]) for e in denied] == [
        ("bash", spawned["instanceID"])
    ]
    assert not (workspace / "hacked").exists()


async def test_file_tools_stay_inside_their_scopes(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    (workspace / "docs").mkdir()
    (workspace / "docs" / "a.md").write_text("inside")
    (workspace / "secret.txt").write_text("outside")
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("read", {"path": "docs/a.md"}, id="r1"),
            FakeToolCall("read", {"path": "secret.txt"}, id="r2"),
            FakeToolCall("read", {"path": "docs/../secret.txt"}, id="r3"),
            FakeToolCall("write", {"path": "docs/new.md", "content": "x"}, id="w1"),
        ),
        Turn.reply("ok"),
    )
    spawned = await spawn_with(
        client,
        write_policy,
        write_template,
        {"tool_allowlist": ["read", "write"], "fs_scopes": {"read": ["docs"]}},
    )
    await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    parts = (await client.get(f"/session/{spawned['sessionID']}/message")).json()[-1]["parts"]
    states = {p["id"]: p["state"] for p in parts if p.get("type") == "tool"}
    assert states == {"r1": "completed", "r2": "denied", "r3": "denied", "w1": "denied"}
    reasons = [e.properties["reason"] for e in await denials(engine, spawned["runID"])]
    assert reasons == [
        "fs read access to `secret.txt` is outside the agent's read scopes",
        "fs read access to `docs/../secret.txt` is outside the agent's read scopes",
        "fs write access blocked: no scopes configured",
    ]
    assert not (workspace / "docs" / "new.md").exists()


async def test_network_tools_need_the_network_scope(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("webfetch", {"url": "http://127.0.0.1:9/x"}, id="f1")),
        Turn.reply("ok"),
    )
    spawned = await spawn_with(
        client, write_policy, write_template, {"tool_allowlist": ["webfetch"]}
    )
    await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    denied = await denials(engine, spawned["runID"])
    assert [e.properties["reason"] for e in denied] == ["network disabled for this agent instance"]


async def test_a_push_without_the_push_capability_is_refused_and_commit_needs_its_own(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall(
                "bash", {"command": "git -C repo push origin main; touch pushed"}, id="b1"
            ),
            FakeToolCall(
                "bash", {"command": "cd repo && git commit -m x; touch committed"}, id="b2"
            ),
        ),
        Turn.reply("ok"),
    )
    spawned = await spawn_with(
        client,
        write_policy,
        write_template,
        {"tool_allowlist": ["bash"], "git_caps": {"read": True}},
    )
    await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    reasons = [e.properties["reason"] for e in await denials(engine, spawned["runID"])]
    assert reasons == [
        "git push denied by agent capability policy",
        "git commit denied by agent capability policy",
    ]
    assert not (workspace / "pushed").exists() and not (workspace / "committed").exists()


async def answer_next_permission(
    client: httpx.AsyncClient, engine: svc.Engine, session_id: str, after: int, reply: str
) -> Event:
    asked = await wait_for_event(engine, "permission.asked", session_id=session_id, after_seq=after)
    response = await client.post(
        f"/permission/{asked.properties['requestID']}/reply", json={"reply": reply}
    )
    assert response.status_code == 200, response.text
    return asked


async def test_push_requires_approval_becomes_a_tool_approval_of_the_instance(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall(
                "bash", {"command": "git push origin main 2>/dev/null; touch pushed"}, id="b1"
            )
        ),
        Turn.calls(
            FakeToolCall(
                "bash", {"command": "git push origin main 2>/dev/null; touch refused"}, id="b2"
            )
        ),
        Turn.calls(FakeToolCall("bash", {"command": "git push 2>/dev/null; touch again"}, id="b3")),
        Turn.reply("done"),
    )
    spawned = await spawn_with(
        client,
        write_policy,
        write_template,
        {"tool_allowlist": ["bash"], "git_caps": {"push": True, "push_requires_approval": True}},
    )
    session_id = spawned["sessionID"]

    asked = await wait_for_event(engine, "permission.asked", session_id=session_id)
    assert asked.properties["permission"] == "git_push"
    listing = (await client.get("/agent-team/approvals")).json()
    assert listing["spawnApprovals"] == [] and listing["count"] == 1
    approval = listing["toolApprovals"][0]
    assert approval["approvalID"] == asked.properties["requestID"] == approval["toolCallID"]
    assert approval["tool"] == "git_push" and approval["status"] == "pending"
    assert approval["instanceID"] == spawned["instanceID"] and approval["sessionID"] == session_id
    assert approval["args"] == {"command": "git push origin main 2>/dev/null; touch pushed"}
    await client.post(f"/permission/{asked.properties['requestID']}/reply", json={"reply": "once"})
    # Approved: then bash itself asks (its default rule), and is allowed once.
    shell = await answer_next_permission(client, engine, session_id, asked.seq, "once")
    assert shell.properties["permission"] == "bash"

    # The next push asks again and is rejected, which also refuses later pushes in this session.
    second = await answer_next_permission(client, engine, session_id, shell.seq, "reject")
    assert second.properties["permission"] == "git_push"
    await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])

    reasons = [e.properties["reason"] for e in await denials(engine, spawned["runID"])]
    assert len(reasons) == 2
    assert (
        reasons[0] == f"git push denied by the user (approvalID={second.properties['requestID']})"
    )
    assert reasons[1] == "git push denied by policy rule"
    assert (workspace / "pushed").exists()
    assert not (workspace / "refused").exists() and not (workspace / "again").exists()
    assert (await client.get("/agent-team/approvals")).json()["toolApprovals"] == []


async def test_policy_level_push_approval_applies_to_every_template(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    fake_model.enqueue(
        Turn.calls(FakeToolCall("bash", {"command": "git push; touch pushed"}, id="b1")),
        Turn.reply("done"),
    )
    spawned = await spawn_with(
        client,
        write_policy,
        write_template,
        {"tool_allowlist": ["bash"], "git_caps": {"push": True}},
        policy={**OPEN_POLICY, "push_requires_approval": True},
    )
    asked = await wait_for_event(engine, "permission.asked", session_id=spawned["sessionID"])
    assert asked.properties["permission"] == "git_push"
    await client.post(f"/permission/{asked.properties['requestID']}/reply", json={"reply": "deny"})
    await wait_for_event(engine, "session.run.finished", run_id=spawned["runID"])
    assert not (workspace / "pushed").exists()
