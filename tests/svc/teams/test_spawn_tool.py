"""The ``spawn_agent`` tool: from a session prompt, from an instance's run, and refused in CLI
tool mode."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

import svc
from svc.tools import PermissionRule, ToolContext
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import text_prompt, wait_for_event
from tests.svc.teams.conftest import OPEN_POLICY, WORKER


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def allow(engine: svc.Engine, permission: str) -> None:
    await engine.permissions.add_rule(
        PermissionRule(id=str(uuid.uuid4()), permission=permission, action="allow")
    )


async def test_spawn_agent_from_a_session_prompt_returns_the_spawn_shape(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(OPEN_POLICY)
    write_template(WORKER)
    sid = (await client.post("/session", json={})).json()["id"]
    args = {
        "role": "worker",
        "justification": "parallelize",
        "missionID": "m-tool",
        "budgetOverride": {"max_tokens": 2000},
    }
    response = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        json=text_prompt(f"/tool spawn_agent {json.dumps(args)}"),
    )
    run_id = response.json()["runID"]
    # spawn_agent asks for permission by default; a human allows it once.
    asked = await wait_for_event(engine, "permission.asked", session_id=sid)
    assert asked.properties["tool"] == "spawn_agent"
    await client.post(f"/permission/{asked.properties['requestID']}/reply", json={"reply": "once"})
    await wait_for_event(engine, "session.run.finished", run_id=run_id)

    parts = (await client.get(f"/session/{sid}/message")).json()[-1]["parts"]
    tool = next(p for p in parts if p["type"] == "tool")
    metadata = tool["metadata"]
    assert tool["state"] == "completed" and metadata["ok"] is True
    assert set(metadata) >= {
        "ok",
        "missionID",
        "instanceID",
        "sessionID",
        "runID",
        "status",
        "skillHash",
    }
    assert metadata["missionID"] == "m-tool" and metadata["status"] == "running"
    assert (
        parts[-1]["text"] == f"spawned worker-basic as instance {metadata['instanceID']} "
        f"(session {metadata['sessionID']})"
    )
    instance = (await client.get(f"/agent-team/instance/{metadata['instanceID']}")).json()[
        "instance"
    ]
    assert instance["metadata"]["source"] == "tool_call" and instance["budget"] == {
        "max_tokens": 2000
    }
    child = (await client.get(f"/session/{metadata['sessionID']}")).json()
    assert child["parentID"] == sid
    requested = await wait_for_event(engine, "agent_team.spawn.requested", session_id=sid)
    assert requested.properties["source"] == "tool_call"


async def test_spawn_agent_denials_come_back_as_the_failure_shape(
    client: httpx.AsyncClient,
    engine: svc.Engine,
) -> None:
    await allow(engine, "spawn_agent")
    sid = (await client.post("/session", json={})).json()["id"]
    result = await client.post(
        f"/session/{sid}/prompt_sync",
        json=text_prompt('/tool spawn_agent {"role": "worker", "justification": "x"}'),
    )
    assert result.status_code == 200, result.text
    parts = (await client.get(f"/session/{sid}/message")).json()[-1]["parts"]
    tool = next(p for p in parts if p["type"] == "tool")
    assert tool["metadata"] == {
        "ok": False,
        "code": "spawn_policy_missing",
        "error": "spawn policy file missing",
        "requiresUserApproval": False,
        "policyFile": str(engine.workspace / ".svc" / "agent-team" / "spawn-policy.yaml"),
    }
    assert parts[-1]["text"] == "spawn policy file missing"

    bad = await client.post(
        f"/session/{sid}/prompt_sync",
        json=text_prompt('/tool spawn_agent {"role": "pilot", "justification": "x"}'),
    )
    assert bad.status_code == 200
    parts = (await client.get(f"/session/{sid}/message")).json()[-1]["parts"]
    tool = next(p for p in parts if p["type"] == "tool")
    assert tool["state"] == "failed" and "args.role" in tool["error"]


async def test_an_instance_spawning_a_child_is_its_parent(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    await allow(engine, "spawn_agent")
    write_policy(
        {"enabled": True, "spawn_edges": {"worker": {"behavior": "allow", "can_spawn": ["tester"]}}}
    )
    write_template({**WORKER, "capabilities": {"tool_allowlist": ["spawn_agent"]}})
    write_template({"templateID": "tester-basic", "role": "tester"})
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("spawn_agent", {"role": "tester", "justification": "tests"}, id="s1"),
            FakeToolCall("spawn_agent", {"role": "reviewer", "justification": "review"}, id="s2"),
        ),
        Turn.reply("delegated"),
    )
    parent = (
        await client.post(
            "/agent-team/spawn",
            json={"role": "worker", "missionID": "m-tree", "prompt": "delegate the tests"},
        )
    ).json()
    await wait_for_event(engine, "session.run.finished", run_id=parent["runID"])
    children = (
        await client.get("/agent-team/instances", params={"parentInstanceID": parent["instanceID"]})
    ).json()
    assert children["count"] == 1
    child = children["instances"][0]
    assert child["role"] == "tester" and child["missionID"] == "m-tree"
    parts = (await client.get(f"/session/{parent['sessionID']}/message")).json()[-1]["parts"]
    results = {p["id"]: p["metadata"] for p in parts if p.get("type") == "tool"}
    assert results["s1"]["instanceID"] == child["instanceID"]
    assert results["s2"] == {
        "ok": False,
        "code": "spawn_denied_edge",
        "error": "role `worker` may not spawn role `reviewer`",
        "requiresUserApproval": False,
    }


async def test_spawn_agent_is_refused_in_direct_cli_tool_mode(engine: svc.Engine) -> None:
    await allow(engine, "spawn_agent")
    ctx = ToolContext(workspace=engine.workspace, source="cli", http=engine.http, interactive=False)
    outcome = await engine.dispatcher.dispatch(
        "spawn_agent", {"role": "worker", "justification": "x"}, ctx
    )
    assert outcome.state == "failed" and outcome.code == "SPAWN_HOOK_UNAVAILABLE"
    assert outcome.error == "spawn_agent must be executed through the engine runtime."
    assert await engine.teams.instances() == []


@pytest.mark.slow
async def test_the_cli_tool_command_refuses_spawn_agent(
    tmp_path: Path, write_policy: Callable[..., Path], workspace: Path
) -> None:
    write_policy(OPEN_POLICY)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "SVC_STATE_DIR": str(tmp_path / "cli-state"),
        "SVC_WORKSPACE": str(workspace),
    }
    # A standing allow rule, so the refusal is the tool's own and not the permission check's.
    settings = svc.Settings.load({"port": 0}, environ=env)
    async with svc.open_engine(settings) as engine:
        await allow(engine, "spawn_agent")
    script = str(Path(sys.executable).parent / "svc-engine")
    body = json.dumps({"tool": "spawn_agent", "args": {"role": "worker", "justification": "x"}})
    with trio.fail_after(120):
        result = await trio.run_process(
            [script, "tool", "--json", body],
            env=env,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            cwd=str(workspace),
        )
    assert result.returncode != 0
    assert (
        b"spawn_agent must be executed through the engine runtime." in result.stderr + result.stdout
    )
