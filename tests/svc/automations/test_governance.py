"""Agent governance of automations v2 (SPEC §5.5): AUTOMATION_V2_AGENT_* and escalation codes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import trio

import svc
from svc.automations import GovernanceDenied, Principal, resolve_principal
from svc.events import EventFilter, EventStream

from .support import node, replies_by_step, v2_spec

AGENT = {"x-svc-agent-id": "planner-1"}


@pytest.fixture
def settings(model_settings: svc.Settings) -> svc.Settings:
    return model_settings.model_copy(
        update={
            "agent_automation_creation_daily_limit": 3,
            "agent_automation_active_cap": 4,
            "agent_automation_creation_review_threshold": 0,
            "agent_automation_depth_limit": 2,
            # Every token costs something, so the spend cap has something to count.
            "token_cost_per_1k_usd": 10.0,
        }
    )


def spec(name: str = "agent-made", **extra: Any) -> dict[str, Any]:
    return v2_spec([node("a", "worker")], name=name, **extra)


def test_actors_come_from_the_agent_id_and_the_request_source() -> None:
    assert resolve_principal("a-1", "control_panel") == Principal("agent", "a-1", "control_panel")
    assert resolve_principal(None, "control_panel").kind == "human"
    assert resolve_principal(None, None).kind == "human"
    assert resolve_principal(None, "agent").kind == "agent"
    assert resolve_principal(None, "tool_call").kind == "agent"
    assert resolve_principal(None, "api_token").kind == "system"
    lineage = resolve_principal("child", None, "root, parent")
    assert lineage.lineage == ("root", "parent") and lineage.depth == 3


async def test_agent_created_automations_record_their_creator(client: httpx.AsyncClient) -> None:
    created = await client.post("/automations/v2", json=spec(), headers=AGENT)
    assert created.status_code == 200, created.text
    automation = created.json()["automation"]
    assert automation["creator_type"] == "agent" and automation["creator_id"] == "planner-1"
    summary = (await client.get("/automations/v2/governance/agents/planner-1")).json()["agent"]
    assert summary["created_total"] == 1 and summary["active_authored"] == 1


async def test_the_daily_quota_and_the_active_cap(client: httpx.AsyncClient) -> None:
    for index in range(3):
        assert (
            await client.post("/automations/v2", json=spec(f"n{index}"), headers=AGENT)
        ).status_code == 200
    over = await client.post("/automations/v2", json=spec("n3"), headers=AGENT)
    assert (
        over.status_code == 429
        and over.json()["code"] == "AUTOMATION_V2_AGENT_DAILY_QUOTA_EXCEEDED"
    )
    # Humans are not governed, and a human can lift the quota for a while.
    assert (await client.post("/automations/v2", json=spec("human"))).status_code == 200
    override = await client.post(
        "/automations/v2/governance/agents/planner-1/quota-override",
        json={"until_ms": 4_102_444_800_000},
    )
    assert override.status_code == 200
    assert (await client.post("/automations/v2", json=spec("n3"), headers=AGENT)).status_code == 200
    capped = await client.post("/automations/v2", json=spec("n4"), headers=AGENT)
    assert capped.status_code == 429 and capped.json()["code"] == "AUTOMATION_V2_AGENT_CAP_EXCEEDED"


async def test_paused_agents_and_review(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    by_agent = await client.post(
        "/automations/v2/governance/agents/planner-1/pause", json={}, headers=AGENT
    )
    assert (
        by_agent.status_code == 403
        and by_agent.json()["code"] == "AUTOMATION_V2_GOVERNANCE_REQUIRES_HUMAN"
    )
    await client.post(
        "/automations/v2/governance/agents/planner-1/pause", json={"reason": "too eager"}
    )
    paused = await client.post("/automations/v2", json=spec(), headers=AGENT)
    assert (
        paused.status_code == 403 and paused.json()["code"] == "AUTOMATION_V2_AGENT_CREATION_PAUSED"
    )
    assert "too eager" in paused.json()["error"]
    await client.post("/automations/v2/governance/agents/planner-1/resume", json={})
    assert (await client.post("/automations/v2", json=spec(), headers=AGENT)).status_code == 200

    engine.settings = engine.settings.model_copy(
        update={"agent_automation_creation_review_threshold": 1}
    )
    review = await client.post("/automations/v2", json=spec("second"), headers=AGENT)
    assert (
        review.status_code == 429 and review.json()["code"] == "AUTOMATION_V2_AGENT_REVIEW_REQUIRED"
    )
    await client.post("/automations/v2/governance/agents/planner-1/review", json={})
    assert (
        await client.post("/automations/v2", json=spec("second"), headers=AGENT)
    ).status_code == 200


async def test_capability_escalation_needs_an_approved_grant(client: httpx.AsyncClient) -> None:
    escalating = spec(capabilities={"creates_agents": True})
    refused = await client.post("/automations/v2", json=escalating, headers=AGENT)
    assert refused.status_code == 403
    assert refused.json()["code"] == "AUTOMATION_V2_CAPABILITY_ESCALATION_FORBIDDEN"
    assert refused.json()["capability"] == "creates_agents"
    expired = await client.post(
        "/automations/v2/governance/agents/planner-1/capabilities",
        json={"capability_key": "creates_agents", "expires_at_ms": 1},
    )
    assert expired.status_code == 200
    assert (await client.post("/automations/v2", json=escalating, headers=AGENT)).status_code == 403
    await client.post(
        "/automations/v2/governance/agents/planner-1/capabilities",
        json={"capability_key": "creates_agents"},
    )
    created = await client.post("/automations/v2", json=escalating, headers=AGENT)
    assert created.status_code == 200
    assert created.json()["automation"]["metadata"]["capabilities"] == {"creates_agents": True}
    # Escalating on patch needs the other grant.
    automation_id = created.json()["automation"]["automation_id"]
    patch = await client.patch(
        f"/automations/v2/{automation_id}",
        json={"capabilities": {"modifies_grants": True}},
        headers=AGENT,
    )
    assert patch.status_code == 403 and patch.json()["capability"] == "modifies_grants"


async def test_lineage_depth_and_anonymous_agents(client: httpx.AsyncClient) -> None:
    deep = await client.post(
        "/automations/v2", json=spec(), headers={**AGENT, "x-svc-agent-ancestor-ids": "root,middle"}
    )
    assert deep.status_code == 403 and deep.json()["code"] == "AUTOMATION_V2_LINEAGE_DEPTH_EXCEEDED"
    anonymous = await client.post(
        "/automations/v2", json=spec(), headers={"x-svc-request-source": "agent"}
    )
    assert (
        anonymous.status_code == 403
        and anonymous.json()["code"] == "AUTOMATION_V2_AGENT_ID_REQUIRED"
    )


async def test_agents_may_only_change_what_they_created(client: httpx.AsyncClient) -> None:
    human = (await client.post("/automations/v2", json=spec("human"))).json()["automation"][
        "automation_id"
    ]
    mine = (await client.post("/automations/v2", json=spec("mine"), headers=AGENT)).json()[
        "automation"
    ]
    theirs = (
        await client.post(
            "/automations/v2", json=spec("theirs"), headers={"x-svc-agent-id": "other"}
        )
    ).json()["automation"]["automation_id"]
    delete_human = await client.delete(f"/automations/v2/{human}", headers=AGENT)
    assert (
        delete_human.status_code == 403
        and delete_human.json()["code"] == "AUTOMATION_V2_DELETE_HUMAN_CREATED_DENIED"
    )
    delete_theirs = await client.delete(f"/automations/v2/{theirs}", headers=AGENT)
    assert delete_theirs.json()["code"] == "AUTOMATION_V2_DELETE_NOT_OWNER"
    modify = await client.patch(
        f"/automations/v2/{human}", json={"name": "mine now"}, headers=AGENT
    )
    assert modify.status_code == 403 and modify.json()["code"] == "AUTOMATION_V2_MODIFY_FORBIDDEN"
    assert (
        await client.patch(
            f"/automations/v2/{mine['automation_id']}", json={"name": "still mine"}, headers=AGENT
        )
    ).status_code == 200
    await client.patch(f"/automations/v2/{mine['automation_id']}", json={"status": "retired"})
    retired = await client.patch(
        f"/automations/v2/{mine['automation_id']}", json={"name": "x"}, headers=AGENT
    )
    assert retired.json()["code"] == "AUTOMATION_V2_RETIRED"
    # Humans bypass all of it.
    assert (await client.delete(f"/automations/v2/{theirs}")).status_code == 200


async def test_creation_can_be_disabled_for_agents(engine: svc.Engine) -> None:
    engine.settings = engine.settings.model_copy(
        update={"agent_automation_creation_enabled": False}
    )
    with pytest.raises(GovernanceDenied) as caught:
        await engine.automations.create_v2(spec(), agent_id="planner-1")
    assert caught.value.code == "AUTOMATION_V2_CREATION_DISABLED" and caught.value.status == 403
    assert (await engine.automations.create_v2(spec())).creator_kind == "human"


async def test_the_weekly_spend_cap(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    engine.settings = engine.settings.model_copy(
        update={"agent_automation_weekly_spend_cap_usd": 0.001}
    )
    fake_model.default = replies_by_step()
    made = (await client.post("/automations/v2", json=spec(), headers=AGENT)).json()["automation"]
    assert (
        await client.post("/automations/v2", json=spec("free so far"), headers=AGENT)
    ).status_code == 200
    run_id = (
        await client.post(f"/automations/v2/{made['automation_id']}/run_now", json={})
    ).json()["run"]["run_id"]
    with (
        trio.fail_after(30),
        EventStream(
            engine.events,
            EventFilter(run_id=run_id, topic="automations/v2", types={"run.completed"}),
            after_seq=0,
        ) as s,
    ):
        await s.receive()
    spent = (await engine.automations.get_v2_run(run_id)).usage["estimated_cost_usd"]
    assert spent > 0.001
    over = await client.post("/automations/v2", json=spec("one more"), headers=AGENT)
    assert (
        over.status_code == 429 and over.json()["code"] == "AUTOMATION_V2_AGENT_SPEND_CAP_EXCEEDED"
    )
    assert over.json()["capUsd"] == 0.001
    # Other agents and humans are not charged for it; a human can lift the cap for a while.
    assert (
        await client.post("/automations/v2", json=spec(), headers={"x-svc-agent-id": "other"})
    ).status_code == 200
    assert (await client.post("/automations/v2", json=spec("human"))).status_code == 200
    await client.post(
        "/automations/v2/governance/agents/planner-1/quota-override",
        json={"until_ms": 4_102_444_800_000},
    )
    assert (
        await client.post("/automations/v2", json=spec("one more"), headers=AGENT)
    ).status_code == 200


async def test_expired_automations_and_paused_agents(client: httpx.AsyncClient) -> None:
    expired = (
        await client.post(
            "/automations/v2", json=spec(metadata={"expires_at_ms": 1}), headers=AGENT
        )
    ).json()["automation"]["automation_id"]
    late = await client.patch(
        f"/automations/v2/{expired}", json={"name": "still here"}, headers=AGENT
    )
    assert late.status_code == 403 and late.json()["code"] == "AUTOMATION_V2_EXPIRED"
    live = (await client.post("/automations/v2", json=spec(), headers=AGENT)).json()["automation"][
        "automation_id"
    ]
    await client.post("/automations/v2/governance/agents/planner-1/pause", json={"reason": "audit"})
    frozen = await client.delete(f"/automations/v2/{live}", headers=AGENT)
    assert frozen.status_code == 403 and frozen.json()["code"] == "AUTOMATION_V2_LIFECYCLE_PAUSED"
    # Humans bypass both.
    assert (
        await client.patch(f"/automations/v2/{expired}", json={"name": "renewed"})
    ).status_code == 200
    assert (await client.delete(f"/automations/v2/{live}")).status_code == 200
