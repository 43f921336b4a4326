"""Reply shapes a client validates: records where it expects objects, read-modify-write config."""

from __future__ import annotations

import httpx

from .support import configure, intake_key, project, report

MEMORY = {"destination_id": "mem", "name": "Memory", "kind": "internal_memory"}


async def test_config_survives_a_read_modify_write_of_destinations_and_routes(
    client: httpx.AsyncClient,
) -> None:
    await configure(client, destinations=[MEMORY])
    current = (await client.get("/config/incident-monitor")).json()["incident_monitor"]
    # what a client does to add a destination and a route: change the object, send it back
    current["destinations"].append(
        {"destination_id": "tel", "name": "Telemetry", "kind": "telemetry"}
    )
    current["routes"].append(
        {"route_id": "r1", "name": "High risk", "destination_ids": ["mem", "tel"]}
    )
    saved = await client.patch("/config/incident-monitor", json={"incident_monitor": current})
    assert saved.status_code == 200, saved.text
    body = saved.json()["incident_monitor"]
    assert [d["destination_id"] for d in body["destinations"]] == ["mem", "tel"]
    assert body["routes"][0]["destination_ids"] == ["mem", "tel"]


async def test_status_lists_destination_records_and_probes_have_object_targets(
    client: httpx.AsyncClient,
) -> None:
    await configure(client, destinations=[MEMORY])
    status = (await client.get("/incident-monitor/status")).json()["status"]
    records = {d["destination_id"]: d for d in status["destinations"]}
    assert records["mem"]["name"] == "Memory" and records["mem"]["kind"] == "internal_memory"
    probes = (await client.post("/incident-monitor/security/assessment-probes", json={})).json()
    assert probes["results"]
    assert all(isinstance(r["target"], dict) and r["target"]["name"] for r in probes["results"])


async def test_single_draft_and_incident_replies_carry_their_record_under_its_name(
    client: httpx.AsyncClient,
) -> None:
    await configure(client, monitored_projects=[project()])
    key = await intake_key(client)
    made = await client.post(
        "/incident-monitor/intake/report",
        json={"project_id": "billing", "report": report()},
        headers={"x-svc-incident-monitor-intake-key": key},
    )
    assert made.status_code == 200, made.text
    draft_id, incident_id = made.json()["draft"]["draft_id"], made.json()["incident"]["incident_id"]
    draft = (await client.get(f"/incident-monitor/drafts/{draft_id}")).json()["draft"]
    assert draft["draft_id"] == draft_id and draft["fingerprint"]
    incident = (await client.get(f"/incident-monitor/incidents/{incident_id}")).json()["incident"]
    assert incident["incident_id"] == incident_id and incident["draft_id"] == draft_id
