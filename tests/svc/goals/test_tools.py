"""The orchestration and goal agent tools: through POST /tool/execute (an operator) and the
dispatcher
inside a session (an agent), with tenant, owner and authority checks and idempotent retries."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import svc
from svc.goals import Principal
from svc.tools import PermissionRule, ToolContext
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import PLAN, create_workflows, run_settled, step_reply

GOAL_TOOLS = (
    "orchestration_create_draft",
    "orchestration_validate",
    "orchestration_publish",
    "goal_start",
    "goal_get",
    "goal_cancel",
    "handoff_emit",
    "handoff_approve",
    "wait_inspect",
    "wait_resolve",
)


@pytest.fixture
async def operator(
    engine: svc.Engine, client: httpx.AsyncClient, fake_model: Any
) -> httpx.AsyncClient:
    """The client, with standing rules that let the operator run the goal tools directly."""
    fake_model.default = step_reply
    await create_workflows(engine, "wf-plan", "wf-build")
    for name in GOAL_TOOLS:
        await engine.permissions.add_rule(
            PermissionRule(id=f"test:{name}", permission=name, action="allow")
        )
    return client


async def call(client: httpx.AsyncClient, tool: str, **args: Any) -> httpx.Response:
    return await client.post("/tool/execute", json={"tool": tool, "args": args})


async def ok(client: httpx.AsyncClient, tool: str, **args: Any) -> dict[str, Any]:
    response = await call(client, tool, **args)
    assert response.status_code == 200, response.text
    return response.json()["metadata"]  # type: ignore[no-any-return]


async def pinned_spec(engine: svc.Engine, **kwargs: Any) -> dict[str, Any]:
    """A draft body whose workflow nodes carry their current definition hashes (agents
    supply pins)."""
    body = linear_spec(**kwargs)
    for node in body["nodes"]:
        if node["kind"] == "workflow":
            automation = await engine.automations.get_v2(node["automation_id"])
            node["pinned_definition_hash"] = engine.automations.definition_hash(automation)
    return {k: v for k, v in body.items() if k != "orchestration_id"}


async def test_every_tool_is_registered_with_a_strict_schema(engine: svc.Engine) -> None:
    for name in GOAL_TOOLS:
        tool = engine.tools.get(name)
        assert tool is not None, name
        assert tool.input_schema["additionalProperties"] is False


async def test_an_operator_drives_a_goal_with_tools(
    operator: httpx.AsyncClient, engine: svc.Engine
) -> None:
    body = await pinned_spec(engine)
    draft = await ok(operator, "orchestration_create_draft", idempotency_key="draft-1", **body)
    orchestration_id = draft["orchestration_id"]
    assert (
        orchestration_id.startswith("orch-")
        and draft["version"] == 0
        and draft["status"] == "draft"
    )
    metadata = draft["orchestration"]["metadata"]
    assert (
        metadata["create_idempotency_key"] == "draft-1"
        and metadata["created_by"] == "local-operator"
    )
    assert (
        await ok(operator, "orchestration_create_draft", idempotency_key="draft-1", **body) == draft
    )
    rebound = await call(
        operator,
        "orchestration_create_draft",
        idempotency_key="draft-1",
        **{**body, "name": "other"},
    )
    assert rebound.status_code == 400 and "already bound" in rebound.json()["error"]

    report = await ok(operator, "orchestration_validate", orchestration_id=orchestration_id)
    assert report["report"]["valid"] is True and report["stale_references"] == []
    published = await ok(
        operator,
        "orchestration_publish",
        orchestration_id=orchestration_id,
        idempotency_key="pub-1",
    )
    assert (published["version"], published["status"]) == (1, "published")
    assert published["orchestration"]["metadata"]["publish"]["idempotency_key"] == "pub-1"
    assert (
        await ok(
            operator,
            "orchestration_publish",
            orchestration_id=orchestration_id,
            idempotency_key="pub-1",
        )
        == published
    )  # a retry does not publish version 2

    started = await ok(
        operator,
        "goal_start",
        orchestration_id=orchestration_id,
        objective="ship",
        idempotency_key="g1",
    )
    goal_id = started["goal"]["goal_id"]
    assert started["replayed"] is False
    await run_settled(engine, started["root_run_id"])
    summary = await ok(operator, "goal_get", goal_id=goal_id)
    assert [link["hop_index"] for link in summary["run_links"]] == [0]
    assert "deadline_ms" not in summary["budgets"]["remaining"]

    emitted = await ok(
        operator,
        "handoff_emit",
        goal_id=goal_id,
        transition_key="planned",
        artifact=PLAN,
        idempotency_key="h1",
    )
    assert emitted["outcome"] == "committed" and emitted["goal"]["current_node_id"] == "build"
    await run_settled(engine, emitted["downstream_run_id"])  # cancel between runs, not mid-request
    cancelled = await ok(operator, "goal_cancel", goal_id=goal_id, idempotency_key="c1")
    assert cancelled["outcome"] == "Applied" and cancelled["goal"]["status"] == "cancelled"
    assert set(cancelled) == {"outcome", "goal", "cancelled_run_id", "cancelled_wait_ids"}
    assert await ok(operator, "goal_cancel", goal_id=goal_id, idempotency_key="c1") == cancelled
    terminal = await call(
        operator,
        "handoff_emit",
        goal_id=goal_id,
        transition_key="done",
        artifact={"artifact_type": "report", "value": 1},
        idempotency_key="h2",
    )
    assert terminal.status_code == 400 and terminal.json()["code"] == "goal_terminal"
    unknown = await call(operator, "goal_get", goal_id="goal-nope")
    assert unknown.status_code == 400 and unknown.json()["code"] == "goal_not_found"
    strict = await call(operator, "goal_get", goal_id=goal_id, extra=True)
    assert strict.status_code == 400 and strict.json()["field"] == "args.extra"


async def agent_context(engine: svc.Engine, **metadata: Any) -> ToolContext:
    return ToolContext(
        workspace=engine.workspace,
        source="session",
        session_id="s-1",
        agent_id="release-agent",
        http=engine.http,
        metadata=metadata,
    )


async def test_agents_never_decide_handoffs_or_resolve_waits(
    operator: httpx.AsyncClient, engine: svc.Engine
) -> None:
    body = await pinned_spec(engine, approval_on="e1")
    orchestration_id = (
        await ok(operator, "orchestration_create_draft", idempotency_key="d", **body)
    )["orchestration_id"]
    await ok(
        operator, "orchestration_publish", orchestration_id=orchestration_id, idempotency_key="p"
    )
    ctx = await agent_context(engine)
    started = await engine.dispatcher.dispatch(
        "goal_start",
        {"orchestration_id": orchestration_id, "objective": "agent goal", "idempotency_key": "g"},
        ctx,
    )
    assert started.ok, started.error
    goal = started.metadata["goal"]
    assert goal["metadata"]["started_by"] == {"kind": "agent", "id": "release-agent"}
    await run_settled(engine, started.metadata["root_run_id"])
    pending = await engine.dispatcher.dispatch(
        "handoff_emit",
        {
            "goal_id": goal["goal_id"],
            "transition_key": "planned",
            "artifact": PLAN,
            "idempotency_key": "h",
        },
        ctx,
    )
    assert pending.ok and pending.metadata["outcome"] == "pending_approval"
    handoff_id = pending.metadata["handoff"]["handoff_id"]
    refused = await engine.dispatcher.dispatch(
        "handoff_approve",
        {
            "goal_id": goal["goal_id"],
            "handoff_id": handoff_id,
            "decision": "approve",
            "idempotency_key": "a",
        },
        ctx,
    )
    assert not refused.ok and refused.code == "goal_forbidden"
    assert "orchestration.approve" in (refused.error or "")
    approved = await ok(
        operator,
        "handoff_approve",
        goal_id=goal["goal_id"],
        handoff_id=handoff_id,
        decision="approve",
        idempotency_key="a",
    )
    assert approved["handoff"]["status"] == "approved"
    committed = await engine.dispatcher.dispatch(
        "handoff_emit",
        {
            "goal_id": goal["goal_id"],
            "transition_key": "planned",
            "artifact": PLAN,
            "idempotency_key": "h",
        },
        ctx,
    )
    assert committed.ok and committed.metadata["commit"] == "Committed"


async def test_waits_are_inspected_and_resolved_with_tools(
    operator: httpx.AsyncClient, engine: svc.Engine
) -> None:
    condition = {
        "kind": "external_condition",
        "condition_key": {"source": "literal", "value": "go"},
        "timeout": {"expires_after_ms": 3_600_000, "on_timeout": "escalate"},
    }
    body = await pinned_spec(engine, wait=condition)
    orchestration_id = (
        await ok(operator, "orchestration_create_draft", idempotency_key="d", **body)
    )["orchestration_id"]
    await ok(
        operator, "orchestration_publish", orchestration_id=orchestration_id, idempotency_key="p"
    )
    started = await ok(
        operator,
        "goal_start",
        orchestration_id=orchestration_id,
        objective="o",
        idempotency_key="g",
    )
    goal_id = started["goal"]["goal_id"]
    await run_settled(engine, started["root_run_id"])
    moved = await ok(
        operator,
        "handoff_emit",
        goal_id=goal_id,
        transition_key="planned",
        artifact=PLAN,
        idempotency_key="h",
    )
    wait_id = (await ok(operator, "goal_get", goal_id=goal_id))["waits"][0]["wait_id"]
    inspected = await ok(operator, "wait_inspect", goal_id=goal_id, wait_id=wait_id)
    assert (
        inspected["wait"]["status"] == "waiting"
        and inspected["wait"]["run_id"] == moved["downstream_run_id"]
    )
    agent = await engine.dispatcher.dispatch(
        "wait_resolve",
        {
            "goal_id": goal_id,
            "wait_id": wait_id,
            "resolution": {"go": True},
            "idempotency_key": "r",
        },
        await agent_context(engine),
    )
    assert not agent.ok and agent.code == "goal_forbidden"
    resolved = await ok(
        operator,
        "wait_resolve",
        goal_id=goal_id,
        wait_id=wait_id,
        resolution={"go": True},
        idempotency_key="r",
    )
    assert resolved["wait"]["status"] == "woken"
    await run_settled(engine, moved["downstream_run_id"])


async def test_another_tenant_needs_a_verified_principal(
    engine: svc.Engine, operator: httpx.AsyncClient
) -> None:
    ctx = ToolContext(
        workspace=engine.workspace,
        source="http",
        http=engine.http,
        metadata={"tenant_context": {"org_id": "acme", "workspace_id": "w1"}},
    )
    outcome = await engine.dispatcher.dispatch("goal_get", {"goal_id": "goal-x"}, ctx)
    assert not outcome.ok and outcome.code == "goal_forbidden"
    assert outcome.error == "tools in a non-local tenant require a verified tenant principal"


def verified(
    engine: svc.Engine, actor: str, *, org: str = "local", workspace: str = "local"
) -> ToolContext:
    """A tool call made for a verified principal of a tenant (as a hosted front end would
    pass it)."""
    tenant = {"org_id": org, "workspace_id": workspace}
    return ToolContext(
        workspace=engine.workspace,
        source="http",
        http=engine.http,
        metadata={"tenant_context": tenant, "principal": Principal(actor, verified=True)},
    )


async def test_tools_check_the_owner_and_the_tenant(
    operator: httpx.AsyncClient, engine: svc.Engine
) -> None:
    alice, bob = verified(engine, "alice"), verified(engine, "bob")
    body = await pinned_spec(engine)
    draft = await engine.dispatcher.dispatch(
        "orchestration_create_draft", {**body, "idempotency_key": "d"}, alice
    )
    assert draft.ok, draft.error
    orchestration_id = draft.metadata["orchestration_id"]
    assert draft.metadata["orchestration"]["metadata"]["created_by"] == "alice"
    stolen = await engine.dispatcher.dispatch(
        "orchestration_publish", {"orchestration_id": orchestration_id, "idempotency_key": "p"}, bob
    )
    assert not stolen.ok and stolen.code == "orchestration_forbidden"
    published = await engine.dispatcher.dispatch(
        "orchestration_publish",
        {"orchestration_id": orchestration_id, "idempotency_key": "p"},
        alice,
    )
    assert published.ok, published.error
    started = await engine.dispatcher.dispatch(
        "goal_start",
        {"orchestration_id": orchestration_id, "objective": "alice's goal", "idempotency_key": "g"},
        alice,
    )
    assert started.ok, started.error
    goal_id = started.metadata["goal"]["goal_id"]
    await run_settled(engine, started.metadata["root_run_id"])

    # Bob sees the goal (visibility is the tenant's) but may not move or cancel it.
    seen = await engine.dispatcher.dispatch("goal_get", {"goal_id": goal_id}, bob)
    assert seen.ok and seen.metadata["goal"]["goal_id"] == goal_id
    for tool, args in (
        (
            "handoff_emit",
            {
                "goal_id": goal_id,
                "transition_key": "planned",
                "artifact": PLAN,
                "idempotency_key": "h",
            },
        ),
        ("goal_cancel", {"goal_id": goal_id, "idempotency_key": "c"}),
    ):
        refused = await engine.dispatcher.dispatch(tool, args, bob)
        assert not refused.ok and refused.code == "goal_forbidden", (tool, refused.error)
    # Another tenant does not see it at all.
    foreign = await engine.dispatcher.dispatch(
        "goal_get", {"goal_id": goal_id}, verified(engine, "alice", org="acme", workspace="w1")
    )
    assert not foreign.ok and foreign.code == "goal_not_found"
    assert (await engine.goals.goal(svc.goals.LOCAL_CALLER, goal_id)).status == "active"
    cancelled = await engine.dispatcher.dispatch(
        "goal_cancel", {"goal_id": goal_id, "idempotency_key": "c"}, alice
    )
    assert cancelled.ok and cancelled.metadata["outcome"] == "Applied"
