"""The agent's memory tools, inside session runs and from the operator's /tool/execute."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import svc
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import text_prompt, wait_for_event


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings


async def put(client: httpx.AsyncClient, **body: Any) -> str:
    response = await client.post("/memory/put", json=body)
    assert response.status_code == 200, response.text
    return response.json()["id"]


async def start(client: httpx.AsyncClient, sid: str, text: str) -> str:
    response = await client.post(
        f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt(text)
    )
    assert response.status_code == 202, response.text
    return response.json()["runID"]


def tool_result(fake_model: Any) -> str:
    return next(m for m in fake_model.requests[-1].body["messages"] if m["role"] == "tool")[
        "content"
    ]


async def test_the_four_tools_are_registered(client: httpx.AsyncClient) -> None:
    ids = (await client.get("/tool/ids")).json()
    assert {"memory_store", "memory_search", "memory_list", "memory_delete"} <= set(ids)


async def test_memory_store_asks_first_and_defaults_to_the_project_tier(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall(
                "memory_store", {"text": "The user prefers tabs.", "tags": ["prefs"]}, id="s1"
            )
        ),
        Turn.reply("Remembered."),
    )
    sid = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    run_id = await start(client, sid, "remember I prefer tabs")
    asked = await wait_for_event(engine, "permission.asked", run_id=run_id)
    assert asked.properties["tool"] == "memory_store"
    await client.post(f"/permission/{asked.properties['requestID']}/reply", json={"reply": "once"})
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert tool_result(fake_model).startswith("Stored memory ")
    items = (await client.get("/memory", params={"tags": "prefs"})).json()["items"]
    assert [(i["tier"], i["project_id"], i["source_type"], i["run_id"]) for i in items] == [
        ("project", "apollo", "agent", run_id)
    ]


async def test_memory_search_sees_only_the_runs_own_memory(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    sid = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    other = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    await put(client, text="kiwi note in my session", session_id=sid)
    await put(client, text="kiwi note in another session", session_id=other)
    await put(client, text="kiwi note for the project", project_id="apollo")
    await put(client, text="kiwi note for another project", project_id="zeus")
    await put(client, text="kiwi note for everyone")
    fake_model.enqueue(
        Turn.calls(FakeToolCall("memory_search", {"query": "kiwi", "limit": 10}, id="q1")),
        Turn.reply("done"),
    )
    run_id = await start(client, sid, "what do you know about kiwi?")
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    result = tool_result(fake_model)
    assert result.startswith("3 memories match 'kiwi':")
    assert "my session" in result and "for the project" in result and "for everyone" in result
    assert "another session" not in result and "another project" not in result
    assert "score=0." in result


async def test_a_run_cannot_reach_into_another_session(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    other = (await client.post("/session", json={})).json()["id"]
    await put(client, text="private plum", session_id=other)
    fake_model.enqueue(
        Turn.calls(FakeToolCall("memory_list", {"session_id": other}, id="l1")), Turn.reply("ok")
    )
    sid = (await client.post("/session", json={})).json()["id"]
    run_id = await start(client, sid, "list their memory")
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    result = tool_result(fake_model)
    assert "own session" in result and "plum" not in result


async def test_memory_list_in_a_run_lists_what_the_run_can_see(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    sid = (await client.post("/session", json={"project_id": "apollo"})).json()["id"]
    await put(client, text="fig in my session", session_id=sid)
    await put(client, text="fig for the project", project_id="apollo")
    await put(client, text="fig for another project", project_id="zeus")
    fake_model.enqueue(Turn.calls(FakeToolCall("memory_list", {}, id="l1")), Turn.reply("ok"))
    run_id = await start(client, sid, "what do you remember?")
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    result = tool_result(fake_model)
    assert "fig in my session" in result and "fig for the project" in result
    assert "another project" not in result


async def test_memory_delete_in_a_run_deletes_only_visible_records(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    fake_model: Any,
) -> None:
    sid = (await client.post("/session", json={})).json()["id"]
    mine = await put(client, text="stale fact", session_id=sid)
    theirs = await put(
        client, text="their fact", session_id=(await client.post("/session", json={})).json()["id"]
    )
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall("memory_delete", {"id": mine}, id="d1"),
            FakeToolCall("memory_delete", {"id": theirs}, id="d2"),
        ),
        Turn.reply("cleaned"),
    )
    run_id = await start(client, sid, "forget the stale fact")
    replied: set[str] = set()
    for _ in range(2):
        asked = await wait_for_event(
            engine,
            "permission.asked",
            run_id=run_id,
            where=lambda e: e.properties["requestID"] not in replied,
        )
        replied.add(asked.properties["requestID"])
        await client.post(
            f"/permission/{asked.properties['requestID']}/reply", json={"reply": "once"}
        )
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert (await client.get(f"/memory/{mine}")).status_code == 404
    assert (await client.get(f"/memory/{theirs}")).status_code == 200
    tools = [m["content"] for m in fake_model.requests[-1].body["messages"] if m["role"] == "tool"]
    assert tools[0] == f"Deleted memory {mine}." and "not found" in tools[1].lower()


async def test_operator_tool_execute_lists_and_searches_everything(
    client: httpx.AsyncClient,
) -> None:
    await put(client, text="alpha in project", project_id="p1")
    await put(client, text="alpha in global")
    listed = (await client.post("/tool/execute", json={"tool": "memory_list", "args": {}})).json()
    assert listed["metadata"]["total"] == 2 and listed["output"].startswith("2 of 2 memories")
    scoped = (
        await client.post(
            "/tool/execute",
            json={
                "tool": "memory_search",
                "args": {"query": "alpha", "project_id": "p1", "tiers": ["project"]},
            },
        )
    ).json()
    assert [r["text"] for r in scoped["metadata"]["results"]] == ["alpha in project"]
    missing = await client.post("/tool/execute", json={"tool": "memory_search", "args": {}})
    assert missing.status_code == 400 and missing.json()["field"] == "args.query"


async def test_operator_cannot_store_or_delete_without_an_interactive_approval(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/tool/execute", json={"tool": "memory_store", "args": {"text": "x"}}
    )
    assert response.status_code == 403 and response.json()["code"] == "TOOL_DISPATCH_DENIED"
