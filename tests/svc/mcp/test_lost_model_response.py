"""A model response lost after the model server took its turn: the soak's MCP runs.

The soak (tests/benchmarks/soak.py) saw one MCP run answer "added" without calling
the tool, and once a run that looked routed to the default provider. Neither is a
routing fault: a run resolves its provider once and uses it for every step. Under
load a response can be lost after the scripted server has taken its turn (the
server closes a keep-alive connection just as the engine reuses it); the engine
retries, rightly, on the same provider, and a FIFO script hands the retry the NEXT
turn. The soak's tools model now answers from the request, as a real model does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import attrs
import httpx
import pytest

import svc
from svc import Settings
from tests.benchmarks.soak import tools_turn
from tests.fakes import RecordedRequest, Turn, open_fake_openai
from tests.fakes.mcp_servers import FakeMcpServer
from tests.helpers import run_events, wait_for_event

from .conftest import connected_engine_server


@pytest.fixture
async def tools_model() -> AsyncIterator[Any]:
    async with open_fake_openai() as server:
        yield server


@pytest.fixture
def settings(make_settings: Any, fake_model: Any, tools_model: Any) -> Settings:
    # As the soak: the default provider echoes, the session's model is a second server.
    return make_settings(
        default_provider="openai",
        providers={
            "openai": {"url": fake_model.url, "api_key": "sk-test-1", "default_model": "fake"},
            "groq": {"url": tools_model.url, "api_key": "sk-test-2", "default_model": "tools"},
        },
    )


async def test_a_retried_request_after_a_lost_response_still_calls_the_tool(
    workbench: FakeMcpServer,
    fake_model: Any,
    tools_model: Any,
    client: httpx.AsyncClient,
    engine: svc.Engine,
) -> None:
    await connected_engine_server(engine, "soak", workbench.url)
    lost: list[Turn] = []

    def first_response_lost(request: RecordedRequest) -> Turn:
        turn = tools_turn(request)
        if not lost:
            # The server takes the turn, sends the headers, and the body never arrives.
            lost.append(turn)
            return attrs.evolve(turn, drop_after=0)
        return turn

    tools_model.default = first_response_lost
    model = {"providerID": "groq", "modelID": "tools"}
    sid = (await client.post("/session", json={"title": "soak mcp", "model": model})).json()["id"]
    started = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        json={"parts": [{"type": "text", "text": "add 7 and 1"}], "model": model},
    )
    assert started.status_code == 202, started.text
    run_id = started.json()["runID"]
    asked = await wait_for_event(engine, "permission.asked", session_id=sid)
    await client.post(
        f"/permission/{asked.properties['requestID']}/reply", json={"reply": "always"}
    )
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)

    assert finished.properties["status"] == "completed", finished.properties
    events = await run_events(engine, run_id)
    tools = [
        e.properties["part"]
        for e in events
        if e.type == "message.part.updated"
        and (e.properties.get("part") or {}).get("type") == "tool"
        and e.properties["part"].get("state") == "completed"
    ]
    assert [str(p["result"]).strip() for p in tools] == ["8"]
    messages = (await client.get(f"/session/{sid}/message")).json()
    assert messages[-1]["parts"][-1]["text"].strip() == "added"
    # The retry went to the session's provider, never to the default one.
    usage = [e.properties for e in events if e.type == "provider.usage"]
    assert {(u["providerID"], u["modelID"]) for u in usage} == {("groq", "tools")}
    assert len(tools_model.requests) == 3 and fake_model.requests == []
