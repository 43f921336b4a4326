"""``GET /context/runs/events/stream``: run events of a workspace, multiplexed over one SSE
stream."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import trio

import svc
from tests.helpers import read_sse, text_prompt, wait_for_event

FLOW = """
workflow:
  id: flow
  steps:
    - id: mark
      action: resource:put:mark
      with: {n: 1}
    - event:flow.done
"""


def write_flow(workspace: Path) -> None:
    path = workspace / ".svc" / "workflows" / "flow.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FLOW)


async def finished_workflow_run(client: httpx.AsyncClient, engine: svc.Engine) -> str:
    run_id = (await client.post("/workflows/flow/run", json={})).json()["run"]["run_id"]
    await wait_for_event(engine, "workflow.run.completed", run_id=run_id)
    return run_id


async def finished_session_run(
    client: httpx.AsyncClient, engine: svc.Engine, directory: Path
) -> str:
    sid = (await client.post("/session", json={"directory": str(directory)})).json()["id"]
    run_id = (
        await client.post(
            f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt("hello")
        )
    ).json()["runID"]
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    return run_id


async def stream(client: httpx.AsyncClient, count: int, **params: Any) -> list[dict[str, Any]]:
    async with client.stream("GET", "/context/runs/events/stream", params=params) as response:
        assert response.status_code == 200
        frames = await read_sse(response, count)
    return [{**json.loads(f["data"]), **({"_id": f["id"]} if "id" in f else {})} for f in frames]


async def test_named_runs_are_replayed_from_their_tails(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_flow(workspace)
    workflow_run = await finished_workflow_run(client, engine)
    session_run = await finished_session_run(client, engine, workspace)
    await engine.events.flush()
    workflow_events = [
        e for e in await engine.events.replay(limit=100_000) if e.run_id == workflow_run
    ]
    session_events = [
        e for e in await engine.events.replay(limit=100_000) if e.run_id == session_run
    ]
    expected = len(workflow_events[-3:]) + len(session_events[-3:])

    frames = await stream(
        client,
        1 + expected,
        workspace=str(workspace),
        run_ids=f"{workflow_run},{session_run}",
        tail=3,
    )
    ready, events = frames[0], frames[1:]
    assert ready["kind"] == "ready" and ready["workspace"] == str(workspace.resolve())
    assert ready["subscribed_run_ids"] == sorted([workflow_run, session_run])
    assert [e["kind"] for e in events] == ["context_run_event"] * expected
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert {e["_id"] for e in events} == {str(e["seq"]) for e in events}
    assert [e["seq"] for e in events if e["run_id"] == workflow_run] == [
        e.seq for e in workflow_events[-3:]
    ]
    last = next(e for e in reversed(events) if e["run_id"] == workflow_run)
    assert last["payload"]["type"] == "workflow.run.completed" and last["payload"]["properties"][
        "runID"
    ] == (workflow_run)


async def test_a_workspace_stream_follows_new_runs_live(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path, tmp_path: Path
) -> None:
    write_flow(workspace)
    other = tmp_path / "elsewhere"
    other.mkdir()
    await client.get("/workflows")
    base = engine.events.subscriber_count
    frames: list[dict[str, Any]] = []
    async with trio.open_nursery() as nursery:

        async def listen() -> None:
            frames.extend(await stream(client, 4, workspace=str(workspace)))

        nursery.start_soon(listen)
        await engine.events.wait_for_subscribers(lambda n: n > base)
        await finished_session_run(client, engine, other)  # another workspace: not on this stream
        await client.post("/workflows/flow/run", json={})
    assert frames[0]["subscribed_run_ids"] == []
    events = frames[1:]
    assert [e["payload"]["type"] for e in events] == [
        "workflow.run.started",
        "workflow.action.started",
        "workflow.action.completed",
    ]
    assert len({e["run_id"] for e in events}) == 1


async def test_a_cursor_resumes_after_the_last_seen_event(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    write_flow(workspace)
    run_id = await finished_workflow_run(client, engine)
    await engine.events.flush()
    events = [e for e in await engine.events.replay(limit=100_000) if e.run_id == run_id]
    frames = await stream(
        client, 3, workspace=str(workspace), run_ids=run_id, cursor=events[-3].seq
    )
    assert [f["seq"] for f in frames[1:]] == [events[-2].seq, events[-1].seq]


async def test_bad_subscriptions_are_refused(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = await finished_session_run(client, engine, other)
    cases = [
        ({}, "workspace"),
        ({"workspace": "relative/path"}, "workspace"),
        ({"workspace": str(workspace), "run_ids": "no-such-run"}, "run_ids"),
        ({"workspace": str(workspace), "run_ids": elsewhere}, "run_ids"),
        ({"workspace": str(workspace), "tail": "many"}, "tail"),
    ]
    for params, field in cases:
        response = await client.get("/context/runs/events/stream", params=params)
        assert response.status_code == 400 and response.json()["field"] == field, params
