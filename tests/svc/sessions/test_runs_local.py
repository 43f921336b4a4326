"""Runs on the built-in offline model.

Events, transcripts, slash tools, permissions, questions, cancel.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

import svc
from tests.helpers import run_events, text_prompt, types, wait_for_event


@pytest.fixture
def settings(make_settings: Callable[..., svc.Settings]) -> svc.Settings:
    return make_settings(env={"SVC_TOKEN_COST_PER_1K_USD": "2.0"})


async def new_session(client: httpx.AsyncClient) -> str:
    return (await client.post("/session", json={})).json()["id"]


async def start(client: httpx.AsyncClient, sid: str, text: str, **headers: str) -> dict:
    response = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        json=text_prompt(text),
        headers=headers,
    )
    assert response.status_code == 202, response.text
    return response.json()


async def test_prompt_async_runs_to_one_terminal_event(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    body = await start(client, sid, "hello there")
    run_id = body["runID"]
    assert body["attachEventStream"] == f"/event?sessionID={sid}&runID={run_id}"
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "completed"
    assert finished.properties["failureCategory"] is None
    events = await run_events(engine, run_id)
    names = types(events)
    assert names[0] == "session.run.started"
    assert names.count("session.run.finished") == 1 and names[-1] == "session.run.finished"
    deltas = [
        e.properties["delta"]
        for e in events
        if e.type == "message.part.updated" and "delta" in e.properties and e.seq > events[2].seq
    ]
    assert "".join(deltas).strip() == "hello there"
    usage = next(e for e in events if e.type == "provider.usage").properties
    assert usage["usageSource"] == "estimated" and usage["totalTokens"] > 0
    assert usage["costUsd"] == pytest.approx(usage["totalTokens"] * 2.0 / 1000)

    messages = (await client.get(f"/session/{sid}/message")).json()
    assert [m["info"]["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["parts"][0]["text"].strip() == "hello there"
    replay = (await client.get(f"/runs/{run_id}/events")).json()
    assert replay["events"][-1]["event_type"] == "session.run.finished"


async def test_prompt_async_without_return_is_204_with_run_header(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    response = await client.post(f"/session/{sid}/prompt_async", json=text_prompt("x"))
    assert response.status_code == 204
    await wait_for_event(engine, "session.run.finished", run_id=response.headers["x-svc-run-id"])


async def test_prompt_sync_returns_the_reply(client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    body = (
        await client.post(f"/session/{sid}/prompt_sync", json=text_prompt("sync please"))
    ).json()
    assert body["status"] == "completed"
    assert body["reply"].strip() == "sync please"
    assert [m["info"]["role"] for m in body["messages"]] == ["user", "assistant"]


async def test_prompt_sync_streams_until_the_run_finishes(client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    async with client.stream(
        "POST",
        f"/session/{sid}/prompt_sync",
        json=text_prompt("stream me"),
        headers={"Accept": "text/event-stream"},
    ) as response:
        text = (await response.aread()).decode()
    frames = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert frames[0]["type"] == "session.run.started"
    assert frames[-1]["type"] == "session.run.finished"


async def test_slash_tool_runs_a_tool_without_the_model(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("file body")
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool read {"path": "a.txt"}'))["runID"]
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    messages = (await client.get(f"/session/{sid}/message")).json()
    parts = messages[1]["parts"]
    tool_part = next(p for p in parts if p["type"] == "tool")
    assert tool_part["state"] == "completed" and tool_part["tool"] == "read"
    assert "file body" in tool_part["result"]
    states = [
        e.properties["part"]["state"]
        for e in await run_events(engine, run_id)
        if e.type == "message.part.updated" and e.properties["part"].get("type") == "tool"
    ]
    assert states[0] == "pending" and "running" in states and states[-1] == "completed"


async def test_ask_permission_blocks_until_reply_and_conflicts_meanwhile(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool write {"path": "out.txt", "content": "42"}'))["runID"]
    asked = await wait_for_event(engine, "permission.asked", run_id=run_id)

    conflict = await client.post(
        f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt("again")
    )
    assert conflict.status_code == 409
    body = conflict.json()
    assert body["code"] == "SESSION_RUN_CONFLICT" and body["retryable"] is True
    assert body["activeRun"]["runID"] == run_id and body["retryAfterMs"] == 500
    assert body["attachEventStream"] == f"/event?sessionID={sid}&runID={run_id}"
    active = (await client.get(f"/session/{sid}/run")).json()
    assert active["active"]["runID"] == run_id

    pending = (await client.get("/permission")).json()["requests"]
    assert [r["id"] for r in pending] == [asked.properties["requestID"]]
    assert pending[0]["tool"] == "write" and pending[0]["status"] == "pending"

    reply = await client.post(
        f"/permission/{asked.properties['requestID']}/reply", json={"reply": "once"}
    )
    assert reply.json()["ok"] is True and reply.json()["persistedRule"] is False
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "completed"
    assert (workspace / "out.txt").read_text() == "42"
    assert (await client.get(f"/session/{sid}/run")).json() == {"active": None}


async def test_a_permission_reply_is_published_to_the_run(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool write {"path": "r.txt", "content": "1"}'))["runID"]
    asked = await wait_for_event(engine, "permission.asked", run_id=run_id)
    request_id = asked.properties["requestID"]
    await client.post(f"/permission/{request_id}/reply", json={"reply": "once"})
    replied = await wait_for_event(engine, "permission.replied", session_id=sid)
    assert replied.properties["requestID"] == request_id
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    names = types(await run_events(engine, run_id))
    assert names.index("permission.asked") < names.index("session.run.finished")


async def test_todo_write_in_a_run_publishes_todo_updated(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    todos = {
        "todos": [
            {"content": "write the docs", "status": "in_progress"},
            {"content": "ship", "status": "pending"},
        ]
    }
    run_id = (await start(client, sid, f"/tool todo_write {json.dumps(todos)}"))["runID"]
    updated = await wait_for_event(engine, "todo.updated", run_id=run_id)
    assert [t["content"] for t in updated.properties["todos"]] == ["write the docs", "ship"]
    assert [t["status"] for t in updated.properties["todos"]] == ["in_progress", "pending"]
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "completed"


async def test_abort_cancels_the_active_run(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool bash {"command": "echo hi"}'))["runID"]
    await wait_for_event(engine, "permission.asked", run_id=run_id)
    assert (await client.post(f"/session/{sid}/abort")).json()["cancelled"] is True
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "cancelled"
    assert (await client.post(f"/session/{sid}/abort")).json()[
        "cancelled"
    ] is False  # nothing left to abort


async def test_rejecting_a_permission_denies_the_call(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool write {"path": "no.txt", "content": "x"}'))["runID"]
    asked = await wait_for_event(engine, "permission.asked", run_id=run_id)
    await client.post(
        f"/permission/{asked.properties['requestID']}/reply", json={"reply": "reject"}
    )
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert not (workspace / "no.txt").exists()
    part = next(
        p
        for p in (await client.get(f"/session/{sid}/message")).json()[1]["parts"]
        if p["type"] == "tool"
    )
    assert part["state"] == "denied"
    rules = (await client.get("/permission")).json()["rules"]
    assert any(
        r["permission"] == "write" and r["action"] == "deny" and r.get("sessionID") == sid
        for r in rules
    )


async def test_always_adds_a_standing_rule(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool write {"path": "1.txt", "content": "1"}'))["runID"]
    asked = await wait_for_event(engine, "permission.asked", run_id=run_id)
    reply = (
        await client.post(
            f"/permission/{asked.properties['requestID']}/reply", json={"reply": "always"}
        )
    ).json()
    assert reply["persistedRule"] is True and reply["standingRuleID"]
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    second = (await start(client, sid, '/tool write {"path": "2.txt", "content": "2"}'))["runID"]
    await wait_for_event(engine, "session.run.finished", run_id=second)
    assert (workspace / "2.txt").read_text() == "2"
    assert "permission.asked" not in types(await run_events(engine, second))


async def test_permission_reply_errors(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    missing = await client.post("/permission/nope/reply", json={"reply": "once"})
    assert missing.status_code == 404 and missing.json()["code"] == "APPROVAL_REQUEST_NOT_FOUND"
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool write {"path": "z.txt", "content": "z"}'))["runID"]
    request_id = (await wait_for_event(engine, "permission.asked", run_id=run_id)).properties[
        "requestID"
    ]
    bad = await client.post(f"/permission/{request_id}/reply", json={"reply": "maybe"})
    assert bad.status_code == 400 and bad.json()["code"] == "APPROVAL_REPLY_INVALID"
    agent = await client.post(
        f"/permission/{request_id}/reply",
        json={"reply": "once"},
        headers={"x-svc-agent-id": "agent-1"},
    )
    assert agent.status_code == 403
    assert (
        await client.post(f"/permission/{request_id}/reply", json={"reply": "once"})
    ).status_code == 200
    again = await client.post(f"/permission/{request_id}/reply", json={"reply": "once"})
    assert again.status_code == 409 and again.json()["code"] == "APPROVAL_REPLY_INVALID"
    await wait_for_event(engine, "session.run.finished", run_id=run_id)


async def test_question_answer_reaches_the_run(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    tool_args = {"questions": [{"question": "Which DB?", "options": ["Postgres", "SQLite"]}]}
    run_id = (await start(client, sid, "/tool question " + json.dumps(tool_args)))["runID"]
    asked = await wait_for_event(engine, "question.asked", run_id=run_id)
    listed = (await client.get("/question")).json()
    assert listed[0]["id"] == asked.properties["id"]
    assert listed[0]["questions"][0]["options"][0] == {"label": "Postgres", "description": ""}
    await client.post(f"/question/{asked.properties['id']}/reply", json={"answers": [["SQLite"]]})
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    reply = (await client.get(f"/session/{sid}/message")).json()[1]
    assert "SQLite" in next(p for p in reply["parts"] if p["type"] == "tool")["result"]
    assert (await client.get("/question")).json() == []


async def test_cancel_ends_the_run_once_as_cancelled(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    run_id = (await start(client, sid, '/tool bash {"command": "echo hi"}'))["runID"]
    await wait_for_event(engine, "permission.asked", run_id=run_id)
    wrong = (await client.post(f"/session/{sid}/run/other/cancel")).json()
    assert wrong == {"ok": True, "cancelled": False, "closedBrowserSessions": 0}
    assert (await client.post(f"/session/{sid}/run/{run_id}/cancel")).json()["cancelled"] is True
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "cancelled"
    assert finished.properties["failureCategory"] == "user_cancelled"
    assert types(await run_events(engine, run_id)).count("session.run.finished") == 1
    assert (await client.get("/permission")).json()["requests"] == []


async def test_idempotency_key_replays_the_same_run(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    first = await start(client, sid, "once", **{"Idempotency-Key": "k1"})
    await wait_for_event(engine, "session.run.finished", run_id=first["runID"])
    again = await start(client, sid, "once", **{"Idempotency-Key": "k1"})
    assert again["runID"] == first["runID"] and again["idempotentReplay"] is True
    other = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        json=text_prompt("different"),
        headers={"Idempotency-Key": "k1"},
    )
    assert other.status_code == 409 and other.json()["code"] == "SESSION_RUN_CONFLICT"


async def test_unconfigured_provider_fails_the_run_with_a_clear_code(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = await new_session(client)
    body = {**text_prompt("hi"), "model": {"providerID": "openai", "modelID": "gpt-x"}}
    run_id = (
        await client.post(f"/session/{sid}/prompt_async", params={"return": "run"}, json=body)
    ).json()["runID"]
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "error"
    assert finished.properties["error"]["code"] == "PROVIDER_NOT_CONFIGURED"
    messages = (await client.get(f"/session/{sid}/message")).json()
    assert messages[0]["info"]["role"] == "user"
    assert "PROVIDER_NOT_CONFIGURED" in messages[1]["parts"][-1]["text"]


async def test_tool_execute_route(client: httpx.AsyncClient, workspace: Path) -> None:
    (workspace / "r.txt").write_text("readable")
    ok = await client.post("/tool/execute", json={"tool": "read", "args": {"path": "r.txt"}})
    assert ok.status_code == 200 and "readable" in ok.json()["output"]
    denied = await client.post(
        "/tool/execute", json={"tool": "write", "args": {"path": "w.txt", "content": "x"}}
    )
    assert denied.status_code == 403 and denied.json()["code"] == "TOOL_DISPATCH_DENIED"
    assert not (workspace / "w.txt").exists()
    unknown = await client.post("/tool/execute", json={"tool": "nope", "args": {}})
    assert unknown.status_code == 404
    bad = await client.post("/tool/execute", json={"tool": "read", "args": {}})
    assert bad.status_code == 400 and bad.json()["code"] == "VALIDATION_FAILED"
    ids = (await client.get("/tool/ids")).json()
    assert {
        "read",
        "write",
        "edit",
        "glob",
        "grep",
        "bash",
        "webfetch",
        "websearch",
        "todo_write",
        "question",
        "batch",
    } <= set(ids)
    listing = (await client.get("/tool")).json()
    assert all({"name", "description", "input_schema"} <= set(t) for t in listing)
