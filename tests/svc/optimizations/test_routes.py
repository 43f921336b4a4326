"""Optimization campaigns over HTTP: stored records clients drive, with a documented
``unsupported`` answer for actions that would need an optimizer."""

from __future__ import annotations

from typing import Any

import httpx


async def create(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post(
        "/optimizations", json={"name": "greeting", "target": {"kind": "prompt"}, **body}
    )
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


async def act(client: httpx.AsyncClient, oid: str, **body: Any) -> httpx.Response:
    return await client.post(f"/optimizations/{oid}/actions", json=body)


async def test_create_list_get(client: httpx.AsyncClient) -> None:
    created = await create(client, metric="accuracy", budget={"max_experiments": 5})
    oid = created["optimization_id"]
    assert created["status"] == "draft" and created["optimizer"]["state"] == "unsupported"
    assert created["config"] == {"budget": {"max_experiments": 5}}
    listed = (await client.get("/optimizations")).json()
    assert [o["optimization_id"] for o in listed["optimizations"]] == [oid]
    got = (await client.get(f"/optimizations/{oid}")).json()
    assert got["name"] == "greeting" and got["metric"] == "accuracy"
    missing = await client.get("/optimizations/nope")
    assert missing.status_code == 404 and missing.json()["code"] == "OPTIMIZATION_NOT_FOUND"
    nameless = await client.post("/optimizations", json={})
    assert nameless.status_code == 400
    assert nameless.json()["code"] == "OPTIMIZATION_VALIDATION_FAILED"


async def test_actions_move_the_campaign_through_its_states(client: httpx.AsyncClient) -> None:
    oid = (await create(client))["optimization_id"]
    assert (await act(client, oid, action="start")).json()["status"] == "active"
    assert (await act(client, oid, action="pause")).json()["status"] == "paused"
    again = await act(client, oid, action="pause")
    assert again.status_code == 409 and again.json()["code"] == "OPTIMIZATION_CONFLICT"
    assert (await act(client, oid, action="resume")).json()["status"] == "active"
    got = (await client.get(f"/optimizations/{oid}")).json()
    assert [h["action"] for h in got["history"]] == ["create", "start", "pause", "resume"]
    unknown = await act(client, oid, action="explode")
    assert unknown.status_code == 400 and unknown.json()["field"] == "action"


async def test_optimizer_actions_answer_unsupported_and_change_nothing(
    client: httpx.AsyncClient,
) -> None:
    oid = (await create(client))["optimization_id"]
    answer = await act(client, oid, action="generate")
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "unsupported" and body["ok"] is False and body["reason"]
    assert body["optimization"]["status"] == "draft"


async def test_record_experiments_and_apply_a_winner(client: httpx.AsyncClient) -> None:
    oid = (await create(client))["optimization_id"]
    await act(client, oid, action="start")
    ids = []
    for name, score in (("short", 0.6), ("friendly", 0.9)):
        recorded = await act(
            client,
            oid,
            action="record_experiment",
            experiment={"name": name, "variant": {"prompt": name}, "score": score},
        )
        ids.append(recorded.json()["experiment"]["experiment_id"])
    listed = (await client.get(f"/optimizations/{oid}/experiments")).json()
    assert listed["count"] == 2 and [e["name"] for e in listed["experiments"]] == [
        "short",
        "friendly",
    ]
    one = (await client.get(f"/optimizations/{oid}/experiments/{ids[1]}")).json()
    assert one["score"] == 0.9 and one["variant"] == {"prompt": "friendly"}
    applied = (await client.post(f"/optimizations/{oid}/experiments/{ids[1]}", json={})).json()
    assert applied["applied"] is True and applied["experiment"]["winner"] is True
    assert applied["optimization"]["status"] == "completed"
    assert applied["optimization"]["winner_experiment_id"] == ids[1]
    # A second choice moves the winner mark.
    await client.post(f"/optimizations/{oid}/experiments/{ids[0]}", json={})
    states = {
        e["experiment_id"]: e["winner"]
        for e in (await client.get(f"/optimizations/{oid}/experiments")).json()["experiments"]
    }
    assert states == {ids[0]: True, ids[1]: False}
    late = await act(client, oid, action="record_experiment", experiment={"name": "late"})
    assert late.status_code == 409
    missing = await client.get(f"/optimizations/{oid}/experiments/nope")
    assert missing.status_code == 404
