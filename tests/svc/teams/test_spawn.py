"""Spawning over HTTP: the gate's checks in order, the response shapes, and the spawn events."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import trio

import svc
from svc.events import EventFilter
from svc.teams import SpawnRequest
from tests.svc.teams.conftest import OPEN_POLICY, WORKER

EMPTY_HASH = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


async def team_events(engine: svc.Engine) -> list[Any]:
    await engine.events.flush()
    return [e for e in await engine.events.replay(EventFilter(topic="agent-team"), limit=10_000)]


async def test_spawn_without_a_policy_file_is_refused_as_policy_missing(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    response = await client.post("/agent-team/spawn", json={"role": "worker", "missionID": "m-1"})
    assert response.status_code == 403
    body = response.json()
    assert body["ok"] is False and body["code"] == "spawn_policy_missing"
    assert body["requiresUserApproval"] is False and body["error"] == "spawn policy file missing"
    events = await team_events(engine)
    assert [e.type for e in events] == ["agent_team.spawn.requested", "agent_team.spawn.denied"]
    assert events[1].properties["code"] == "spawn_policy_missing"
    assert events[1].properties["missionID"] == "m-1"
    assert (await client.get("/agent-team/instances")).json() == {"instances": [], "count": 0}


async def test_spawn_success_returns_the_instance_and_announces_it_in_order(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(OPEN_POLICY)
    write_template(WORKER)
    response = await client.post(
        "/agent-team/spawn",
        json={
            "missionID": "m-42",
            "role": "worker",
            "templateID": "worker-basic",
            "justification": "split the work",
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["missionID"] == "m-42" and body["status"] == "running"
    assert body["instanceID"].startswith("ins_") and body["runID"] is None
    assert body["skillHash"] == EMPTY_HASH
    assert body["managedWorktree"] is None and body["workspaceRoot"] == str(engine.workspace)

    session = (await client.get(f"/session/{body['sessionID']}")).json()
    assert session["title"] == "Agent Team worker-basic"

    events = await team_events(engine)
    assert [e.type for e in events] == [
        "agent_team.spawn.requested",
        "agent_team.spawn.approved",
        "agent_team.instance.started",
    ]
    requested, approved, started = (e.properties for e in events)
    assert requested["requestedRole"] == "worker" and requested["justification"] == "split the work"
    assert requested["sessionID"] is None and requested["instanceID"] is None
    assert (
        approved["instanceID"] == body["instanceID"] and approved["sessionID"] == body["sessionID"]
    )
    assert approved["skillHash"] == EMPTY_HASH and approved["source"] == "ui_action"
    assert (
        started["role"] == "worker"
        and started["status"] == "running"
        and started["budgetLimit"] == {}
    )
    for event in events:
        assert {"sessionID", "messageID", "runID", "missionID", "instanceID", "timestampMs"} <= set(
            event.properties
        )

    listed = (await client.get("/agent-team/instances", params={"missionID": "m-42"})).json()
    assert listed["count"] == 1
    instance = listed["instances"][0]
    assert instance["instanceID"] == body["instanceID"] and instance["templateID"] == "worker-basic"
    assert instance["capabilities"]["tool_allowlist"] == ["read", "glob", "write", "bash"]
    assert instance["metadata"]["justification"] == "split the work"
    assert "parentInstanceID" not in instance and "runID" not in instance
    assert (await client.get("/agent-team/instances", params={"missionID": "other"})).json()[
        "count"
    ] == 0
    assert (await client.get("/agent-team/instances", params={"status": "running"})).json()[
        "count"
    ] == 1
    bad = await client.get("/agent-team/instances", params={"status": "sleeping"})
    assert bad.status_code == 400 and bad.json()["field"] == "status"


async def test_a_spawn_without_template_uses_the_first_of_its_role_or_the_least_capable_default(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(OPEN_POLICY)
    write_template({**WORKER, "templateID": "worker-b"})
    write_template({**WORKER, "templateID": "worker-a"})
    first = (await client.post("/agent-team/spawn", json={"role": "worker"})).json()
    assert first["missionID"] == "mission-default"
    listed = (await client.get("/agent-team/instances")).json()["instances"]
    assert listed[0]["templateID"] == "worker-a"

    await client.post("/agent-team/spawn", json={"role": "tester"})
    tester = (await client.get("/agent-team/instances")).json()["instances"]
    default = next(i for i in tester if i["role"] == "tester")
    assert default["templateID"] == "default-template"
    assert default["capabilities"]["fs_scopes"] == {"read": [], "write": []}
    assert default["capabilities"]["net_scopes"]["enabled"] is False

    missing = await client.post("/agent-team/spawn", json={"role": "worker", "templateID": "nope"})
    assert missing.status_code == 403 and missing.json()["code"] == "spawn_template_not_found"
    mismatch = await client.post(
        "/agent-team/spawn", json={"role": "tester", "templateID": "worker-a"}
    )
    assert mismatch.json()["code"] == "spawn_template_role_mismatch"


async def test_policy_checks_refuse_in_order(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_template(WORKER)
    write_policy({"enabled": False, "require_justification": True})
    refused = await client.post("/agent-team/spawn", json={"role": "worker"})
    assert refused.json()["code"] == "spawn_policy_disabled"

    write_policy(
        {"enabled": True, "require_justification": True, "max_agents": 2, "max_concurrent": 1}
    )
    refused = await client.post(
        "/agent-team/spawn", json={"role": "worker", "justification": "   "}
    )
    assert refused.status_code == 403 and refused.json()["code"] == "spawn_justification_required"

    first = await client.post("/agent-team/spawn", json={"role": "worker", "justification": "one"})
    assert first.json()["ok"] is True
    refused = await client.post(
        "/agent-team/spawn", json={"role": "worker", "justification": "two"}
    )
    assert refused.json()["code"] == "spawn_max_concurrent_exceeded"

    cancel = await client.post(f"/agent-team/instance/{first.json()['instanceID']}/cancel", json={})
    assert cancel.json()["status"] == "cancelled"
    second = await client.post("/agent-team/spawn", json={"role": "worker", "justification": "two"})
    assert second.json()["ok"] is True
    await client.post(f"/agent-team/instance/{second.json()['instanceID']}/cancel", json={})
    # Ended instances still count against max_agents.
    refused = await client.post(
        "/agent-team/spawn", json={"role": "worker", "justification": "three"}
    )
    assert refused.json()["code"] == "spawn_max_agents_exceeded"


async def test_spawn_edges_of_the_parent_role_decide(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_template(WORKER)
    write_template({"templateID": "tester-basic", "role": "tester"})
    write_template({"templateID": "reviewer-basic", "role": "reviewer"})
    write_policy(
        {
            "enabled": True,
            "spawn_edges": {
                "worker": {"behavior": "allow", "can_spawn": ["tester"]},
                "tester": {"behavior": "deny", "can_spawn": ["worker"]},
                "reviewer": {"can_spawn": ["worker"]},
            },
        }
    )
    parent = (
        await client.post("/agent-team/spawn", json={"role": "worker", "missionID": "m"})
    ).json()
    child = await client.post(
        "/agent-team/spawn", json={"role": "tester", "parentInstanceID": parent["instanceID"]}
    )
    assert child.json()["ok"] is True and child.json()["missionID"] == "m"
    listed = (
        await client.get("/agent-team/instances", params={"parentInstanceID": parent["instanceID"]})
    ).json()
    assert [i["instanceID"] for i in listed["instances"]] == [child.json()["instanceID"]]

    not_listed = await client.post(
        "/agent-team/spawn", json={"role": "reviewer", "parentInstanceID": parent["instanceID"]}
    )
    assert not_listed.json()["code"] == "spawn_denied_edge"
    denied = await client.post(
        "/agent-team/spawn", json={"role": "worker", "parentInstanceID": child.json()["instanceID"]}
    )
    assert denied.json()["code"] == "spawn_denied_edge"
    reviewer = (await client.post("/agent-team/spawn", json={"role": "reviewer"})).json()
    no_behavior = await client.post(
        "/agent-team/spawn", json={"role": "worker", "parentInstanceID": reviewer["instanceID"]}
    )
    assert no_behavior.json()["code"] == "spawn_denied_edge"
    unknown = await client.post(
        "/agent-team/spawn", json={"role": "worker", "parentInstanceID": "ins_missing"}
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "INSTANCE_NOT_FOUND"
    other_mission = await client.post(
        "/agent-team/spawn",
        json={"role": "tester", "parentInstanceID": parent["instanceID"], "missionID": "elsewhere"},
    )
    assert other_mission.json()["code"] == "spawn_parent_mission_mismatch"


async def test_required_skills_must_be_declared_by_the_template(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    write_policy({**OPEN_POLICY, "required_skills": {"worker": [{"path": "skills/py.md"}]}})
    write_template(WORKER)
    refused = await client.post("/agent-team/spawn", json={"role": "worker"})
    assert refused.json()["code"] == "spawn_required_skill_missing"
    assert refused.json()["requiredSkill"] == {"path": "skills/py.md"}

    write_template({**WORKER, "skills": [{"path": "skills/py.md"}]})
    missing_file = await client.post("/agent-team/spawn", json={"role": "worker"})
    assert missing_file.json()["code"] == "spawn_required_skill_missing"
    assert "missing required skill path" in missing_file.json()["error"]
    (workspace / "skills").mkdir()
    (workspace / "skills" / "py.md").write_text("write tests first\n")
    spawned = await client.post("/agent-team/spawn", json={"role": "worker"})
    assert spawned.json()["ok"] is True and spawned.json()["skillHash"] != EMPTY_HASH


async def test_invalid_bodies_name_the_field(
    client: httpx.AsyncClient, write_policy: Callable[..., Path]
) -> None:
    write_policy(OPEN_POLICY)
    for body, field in (
        ({"role": "pilot"}, "role"),
        ({}, "role"),
        (
            {"role": "worker", "budget_override": {"max_tokens": "many"}},
            "budget_override.max_tokens",
        ),
        ({"role": "worker", "budgetOverride": {"max_steps": -1}}, "budget_override.max_steps"),
        ({"role": "worker", "source": "somewhere"}, "source"),
        ({"role": "worker", "missionID": " "}, "missionID"),
    ):
        response = await client.post("/agent-team/spawn", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["field"] == field and response.json()["ok"] is False
    empty = await client.post("/agent-team/spawn", content=b"")
    assert empty.status_code == 400


async def test_a_broken_policy_file_is_reported_with_its_file_and_line(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    path = write_policy("enabled: true\nspawn_edges:\n  worker: {behavior: allow\n  tester: {}\n")
    refused = (await client.post("/agent-team/spawn", json={"role": "worker"})).json()
    assert refused["code"] == "spawn_policy_missing"
    assert refused["error"].startswith(f"spawn policy load failed: {path}:")
    assert refused["file"] == str(path) and refused["line"] == 4

    write_policy("enabled: true\nspawn_edges:\n  worker:\n    behavior: sometimes\n")
    refused = (await client.post("/agent-team/spawn", json={"role": "worker"})).json()
    assert refused["line"] == 4 and refused["field"] == "spawn_edges[worker].behavior"
    assert "must be one of allow, deny, request_only" in refused["error"]

    write_policy(OPEN_POLICY)
    template = write_template("templateID: broken\nrole: [worker\n", name="broken.yaml")
    listing = await client.get("/agent-team/templates")
    assert listing.status_code == 422
    body = listing.json()
    assert body["ok"] is False and body["code"] == "TEMPLATE_LOAD_FAILED"
    assert body["file"] == str(template) and body["line"] == 3


async def test_templates_can_be_listed_created_patched_and_deleted(
    client: httpx.AsyncClient,
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    write_template(WORKER, name="custom-name.yml")
    listed = (await client.get("/agent-team/templates")).json()
    assert listed["count"] == 1
    entry = listed["templates"][0]
    assert entry["templateID"] == entry["id"] == "worker-basic" and entry["name"] == "Worker"
    assert entry["capabilities"]["git_caps"] == {
        "read": False,
        "commit": False,
        "push": False,
        "push_requires_approval": False,
    }

    created = await client.post(
        "/agent-team/templates",
        json={
            "template": {
                "templateID": "tester/one",
                "role": "tester",
                "default_budget": {"max_tokens": 500},
            }
        },
    )
    assert created.status_code == 200 and created.json()["template"]["default_budget"] == {
        "max_tokens": 500
    }
    assert (workspace / ".svc" / "agent-team" / "templates" / "tester_one.yaml").is_file()

    patched = await client.patch(
        "/agent-team/templates/worker-basic", json={"display_name": "Builder"}
    )
    assert patched.json()["template"]["display_name"] == "Builder"
    assert (
        "Builder"
        in (workspace / ".svc" / "agent-team" / "templates" / "custom-name.yml").read_text()
    )
    assert (await client.patch("/agent-team/templates/nope", json={})).status_code == 404
    bad = await client.patch("/agent-team/templates/worker-basic", json={"role": "pilot"})
    assert bad.status_code == 400 and bad.json()["field"] == "role"

    deleted = await client.delete("/agent-team/templates/tester/one")
    assert deleted.status_code == 404  # the path segment cannot hold a slash
    deleted = await client.delete("/agent-team/templates/worker-basic")
    assert deleted.json() == {"ok": True, "deleted": True, "templateID": "worker-basic"}
    assert [
        t["templateID"] for t in (await client.get("/agent-team/templates")).json()["templates"]
    ] == ["tester/one"]


async def test_concurrent_spawns_respect_max_concurrent_exactly(
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy({"enabled": True, "max_concurrent": 3})
    write_template(WORKER)
    results: list[Any] = []

    async def one(index: int) -> None:
        results.append(
            await engine.teams.spawn(SpawnRequest(role="worker", mission_id=f"m-{index % 2}"))
        )

    async with trio.open_nursery() as nursery:
        for index in range(8):
            nursery.start_soon(one, index)
    assert sum(r.ok for r in results) == 3
    assert (
        sorted(r.body["code"] for r in results if not r.ok) == ["spawn_max_concurrent_exceeded"] * 5
    )
    assert len(await engine.teams.instances(status="running")) == 3


async def test_a_template_can_reference_a_skill_of_an_installed_pack_by_id(
    client: httpx.AsyncClient,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    tmp_path: Path,
) -> None:
    from tests.svc.packs.test_routes import make_pack

    write_policy(OPEN_POLICY)
    write_template({**WORKER, "skills": [{"id": "deploy"}]})
    missing = await client.post("/agent-team/spawn", json={"role": "worker"})
    assert missing.json()["code"] == "spawn_required_skill_missing"
    installed = await client.post("/packs/install", json={"path": str(make_pack(tmp_path / "p"))})
    assert installed.status_code == 200
    spawned = await client.post("/agent-team/spawn", json={"role": "worker"})
    assert spawned.json()["ok"] is True and spawned.json()["skillHash"] != EMPTY_HASH


async def test_a_template_can_reference_a_skill_of_the_engine_skill_root_by_id(
    client: httpx.AsyncClient,
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(OPEN_POLICY)
    write_template({**WORKER, "skills": [{"id": "triage"}]})
    skill = engine.state_dir / "skills" / "triage" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: triage\ndescription: sorts issues\n---\nsteps\n")
    spawned = await client.post("/agent-team/spawn", json={"role": "worker"})
    assert spawned.json()["ok"] is True and spawned.json()["skillHash"] != EMPTY_HASH
