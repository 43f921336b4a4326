"""MCP tools inside model-driven runs: discovery to the model, approval, repair, auth events."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import svc
from tests.fakes.mcp_servers import AUTH_URL, FakeMcpServer
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import text_prompt, wait_for_event

from .conftest import connected_engine_server


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def run_with_approval(
    client: httpx.AsyncClient, engine: svc.Engine, prompt: str
) -> tuple[str, str]:
    sid = (await client.post("/session", json={})).json()["id"]
    started = await client.post(
        f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt(prompt)
    )
    assert started.status_code == 202, started.text
    run_id = started.json()["runID"]
    asked = await wait_for_event(engine, "permission.asked", session_id=sid)
    reply = await client.post(
        f"/permission/{asked.properties['requestID']}/reply", json={"reply": "once"}
    )
    assert reply.status_code == 200, reply.text
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "completed", finished.properties
    return sid, run_id


async def test_a_model_calls_an_mcp_tool_with_drifted_keys_after_approval(
    strict: FakeMcpServer, fake_model: Any, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "tasks", strict.url)
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("mcp.tasks.create_task", {"listId": "L1", "name": "Prep fish"}, id="c1")
        ),
        Turn.reply("Created the task."),
    )
    await run_with_approval(client, engine, "add a task")
    offered = {t["function"]["name"]: t["function"] for t in fake_model.requests[0].body["tools"]}
    assert offered["mcp_tasks_create_task"]["parameters"]["required"] == ["list_id", "task_title"]
    # The server received the schema's names only (it forbids additional properties).
    assert strict.calls() == [
        {"name": "create_task", "arguments": {"list_id": "L1", "task_title": "Prep fish"}}
    ]
    tool_message = next(m for m in fake_model.requests[1].body["messages"] if m["role"] == "tool")
    assert json.loads(tool_message["content"]) == {"list_id": "L1", "task_title": "Prep fish"}


async def test_an_auth_challenge_in_a_run_is_announced_on_the_session_stream(
    gateway: FakeMcpServer, fake_model: Any, client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "gw", gateway.url)
    fake_model.enqueue(
        Turn.calls(FakeToolCall("mcp.gw.gmail_sendemail", {"to": "a@example.test"}, id="c1")),
        Turn.reply("Please authorize Gmail first."),
    )
    sid, run_id = await run_with_approval(client, engine, "email the team")
    required = await wait_for_event(engine, "mcp.auth.required", session_id=sid)
    assert required.properties["runID"] == run_id and required.properties["callID"] == "c1"
    assert required.properties["authorizationUrl"] == AUTH_URL
    tool_message = next(m for m in fake_model.requests[1].body["messages"] if m["role"] == "tool")
    assert tool_message["content"].startswith(
        "Authorization required for `mcp.gw.gmail_sendemail`."
    )
