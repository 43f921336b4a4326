"""Routine, automation v1 and mission replies carry the fields clients written against the
published client models read (beside the reference's own fields)."""

from __future__ import annotations

from typing import Any

import httpx

import svc

from .test_routines import routine_body, settle

CLIENT_DEFINITION_STATUSES = {"enabled", "disabled", "paused", "unknown"}
CLIENT_RUN_STATUSES = {"queued", "running", "succeeded", "failed", "canceled", "unknown"}


async def test_records_carry_id_and_a_client_status(client: httpx.AsyncClient) -> None:
    created = (await client.post("/routines", json=routine_body())).json()["routine"]
    assert created["id"] == created["routine_id"] == "digest"
    assert created["status"] == "enabled" and created["state"] == "active"
    listed = (await client.get("/automations")).json()["automations"][0]
    assert listed["id"] == listed["automation_id"] == "digest"
    assert listed["status"] in CLIENT_DEFINITION_STATUSES

    # A PATCH answers the record at the top level too; the clients' words are accepted.
    patched = (await client.patch("/routines/digest", json={"status": "disabled"})).json()
    assert patched["id"] == "digest" and patched["status"] == "paused"
    assert patched["routine"]["state"] == "paused"
    enabled = (await client.patch("/routines/digest", json={"status": "enabled"})).json()
    assert enabled["status"] == "enabled"


async def test_a_routine_shaped_body_on_automations_keeps_its_automation_id(
    client: httpx.AsyncClient,
) -> None:
    body = {k: v for k, v in routine_body().items() if k != "routine_id"}
    created = await client.post("/automations", json={**body, "automation_id": "nightly"})
    assert created.json()["automation"]["automation_id"] == "nightly"


async def test_run_now_get_run_and_history_in_the_clients_shapes(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    await client.post("/automations", json=routine_body())
    started = (await client.post("/automations/digest/run_now", json={})).json()
    run_id = started["run"]["run_id"]
    assert started["runID"] == started["run_id"] == run_id
    assert started["status"] in CLIENT_RUN_STATUSES
    await settle(engine, run_id)

    got = (await client.get(f"/automations/runs/{run_id}")).json()
    assert got["id"] == got["run_id"] == run_id and got["automation_id"] == "digest"
    assert got["status"] == "succeeded" and got["run_status"] == "completed"
    assert got["run"]["status"] == "completed" and got["finished_at_ms"] is not None

    history = (await client.get("/routines/digest/history")).json()
    assert history["events"][0]["status"] == "completed"
    entry = history["history"][0]
    assert (
        entry["event"] == "run.completed" and entry["ts_ms"] == history["events"][0]["fired_at_ms"]
    )
    assert "status" not in entry and entry["run_status"] == "completed"


async def test_missions_carry_id_and_an_event_defaults_to_the_path_mission(
    client: httpx.AsyncClient,
) -> None:
    mission = (
        await client.post("/mission", json={"title": "Ship it", "goal": "release 1.0"})
    ).json()["mission"]
    assert mission["id"] == mission["mission_id"]
    assert (mission["title"], mission["goal"]) == ("Ship it", "release 1.0")
    listed = (await client.get("/mission")).json()["missions"]
    assert listed[0]["id"] == mission["id"]
    applied = await client.post(
        f"/mission/{mission['id']}/event", json={"event": {"type": "mission_started"}}
    )
    assert applied.status_code == 200, applied.text
    assert applied.json()["mission"]["id"] == mission["id"]
