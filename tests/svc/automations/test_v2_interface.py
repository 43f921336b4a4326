"""The automation v2 interface other domains build on (engine.automations)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import trio

import svc
from svc.errors import ValidationFailed
from svc.events import EventFilter
from tests.fakes.turns import Turn
from tests.helpers import wait_for_event

from .support import (
    agent,
    node,
    offered_tools,
    replies_by_step,
    settled,
    step_of,
    user_prompt,
    v2_spec,
)


async def test_create_v2_stores_the_canonical_spec_and_hashes_it(engine: svc.Engine) -> None:
    body = v2_spec(
        [node("scan", "worker"), node("draft", "worker", deps=["scan"])],
        agents=[agent("worker", allow=["read", " read ", "glob"])],
    )
    created = await engine.automations.create_v2(body)
    assert created.automation_id.startswith("automation-v2-") and created.status == "active"
    fetched = await engine.automations.get_v2(created.automation_id)
    assert fetched == created
    spec = fetched.spec
    assert spec["agents"][0]["tool_policy"] == {"allowlist": ["read", "glob"], "denylist": []}
    assert spec["flow"]["nodes"][1]["depends_on"] == ["scan"]
    assert "status" not in spec and "automation_id" not in spec
    expected = (
        "sha256:"
        + hashlib.sha256(
            json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        ).hexdigest()
    )
    assert engine.automations.definition_hash(fetched) == expected
    assert engine.automations.definition_hash(dict(spec)) == expected
    assert await engine.automations.get_v2("automation-v2-missing") is None


@pytest.mark.parametrize(
    ("nodes", "field", "node_id", "words"),
    [
        (
            [node("a", "worker", deps=["b"]), node("b", "worker", deps=["a"])],
            "flow.nodes[0].depends_on",
            "a",
            "cycle: a -> b -> a",
        ),
        (
            [node("a", "worker"), node("b", "ghost", deps=["a"])],
            "flow.nodes[1].agent_id",
            "b",
            "unknown agent `ghost`",
        ),
        (
            [node("a", "worker", deps=["nope"])],
            "flow.nodes[0].depends_on",
            "a",
            "unknown node `nope`",
        ),
        (
            [node("a", "worker"), node("a", "worker")],
            "flow.nodes[1].node_id",
            "a",
            "declared twice",
        ),
        ([node("a", "worker", deps=["a"])], "flow.nodes[0].depends_on", "a", "cycle: a -> a"),
    ],
)
async def test_invalid_flows_are_rejected_naming_the_node(
    engine: svc.Engine,
    nodes: list[dict[str, Any]],
    field: str,
    node_id: str,
    words: str,
) -> None:
    with pytest.raises(ValidationFailed) as caught:
        await engine.automations.create_v2(v2_spec(nodes))
    error = caught.value
    assert error.status == 400 and error.code == "AUTOMATION_V2_CREATE_FAILED"
    assert error.extra["field"] == field and error.extra["node_id"] == node_id
    assert words in error.message
    assert engine.automations.v2.all_automations() == []


async def test_a_run_executes_the_dag_and_outputs_flow_to_dependants(
    engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    automation = await engine.automations.create_v2(
        v2_spec(
            [
                node("draft", "writer", deps=["scan"]),
                node("scan", "researcher"),
                node(
                    "review",
                    "writer",
                    deps=["draft"],
                    input_refs=[{"from_step_id": "scan", "alias": "sources"}],
                ),
            ],
            agents=[agent("researcher", allow=["read", "glob"]), agent("writer", allow=["write"])],
        )
    )
    run = await engine.automations.create_v2_run(
        automation.automation_id,
        context={"objective": "weekly digest", "input_artifact": {"kind": "brief"}},
    )
    assert run.status == "queued" and run.run_id.startswith("automation-v2-run-")
    assert run.allowed_tools == ("glob", "read", "write")
    done = await settled(engine, run.run_id)
    assert done.status == "completed"
    assert done.node_outputs == {
        "draft": "output of draft",
        "scan": "output of scan",
        "review": "output of review",
    }
    order = [step_of(r) for r in fake_model.requests]
    assert order == ["scan", "draft", "review"]
    draft_prompt = user_prompt(fake_model.requests[1])
    assert "--- scan (from step scan) ---\noutput of scan" in draft_prompt
    assert "Overall objective: weekly digest" in draft_prompt and '"kind": "brief"' in draft_prompt
    review_prompt = user_prompt(fake_model.requests[2])
    assert (
        "output of draft" in review_prompt and "--- sources (from step scan) ---" in review_prompt
    )
    assert (
        done.usage["total_tokens"] > 0
        and done.started_at_ms is not None
        and done.finished_at_ms is not None
    )
    assert all(state.session_id for state in done.nodes.values())

    await engine.events.flush()
    events = await engine.events.replay(EventFilter(run_id=run.run_id, topic="automations/v2"))
    names = [e.type for e in events]
    assert (
        names[0] == "automation.v2.run.created"
        and names[1] == "run.started"
        and names[-1] == "run.completed"
    )
    assert all(e.properties["automationID"] == automation.automation_id for e in events)
    assert [
        e.properties["nodeID"] for e in events if e.properties.get("phase") == "node_completed"
    ] == ["scan", "draft", "review"]


async def test_each_node_sees_only_its_agents_tools_and_model(
    engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    automation = await engine.automations.create_v2(
        v2_spec(
            [
                node("look", "reader"),
                node("edit", "editor", deps=["look"]),
                node("quiet", "silent", deps=["edit"]),
            ],
            agents=[
                agent("reader", allow=["read", "glob"]),
                agent(
                    "editor",
                    allow=["*"],
                    deny=["bash", "web*"],
                    model=("openai", "fake-editor-model"),
                ),
                agent("silent", allow=["read"], deny=["*"]),
            ],
        )
    )
    run = await engine.automations.create_v2_run(automation.automation_id)
    done = await settled(engine, run.run_id)
    assert done.status == "completed"
    by_step = {step_of(r): r for r in fake_model.requests}
    assert offered_tools(by_step["look"]) == {"read", "glob"}
    editor_tools = offered_tools(by_step["edit"])
    assert {"read", "write", "edit"} <= editor_tools
    assert not editor_tools & {"bash", "webfetch", "websearch", "webfetch_html"}
    assert by_step["edit"].body["model"] == "fake-editor-model"
    assert by_step["look"].body["model"] == "fake-model"
    assert offered_tools(by_step["quiet"]) == set()
    assert done.nodes["edit"].model["source"] == "agents.editor.model_policy.default_model"


async def test_parallel_nodes_are_bounded_by_max_parallel_agents(
    engine: svc.Engine, fake_model: Any
) -> None:
    gates = {name: trio.Event() for name in ("a", "b", "c", "d")}
    fake_model.default = replies_by_step(gates)
    automation = await engine.automations.create_v2(
        v2_spec(
            [
                node("a", "worker"),
                node("b", "worker"),
                node("c", "worker"),
                node("d", "worker"),
                node("join", "worker", deps=["a", "b", "c", "d"]),
            ],
            parallel=2,
        )
    )
    run = await engine.automations.create_v2_run(automation.automation_id)
    await fake_model.wait_for_requests(2)
    await engine.events.flush()
    running = await engine.automations.get_v2_run(run.run_id)
    assert sorted(n for n, s in running.nodes.items() if s.status == "running") == ["a", "b"]
    assert len(fake_model.requests) == 2
    gates["a"].set()
    await fake_model.wait_for_requests(3)
    assert step_of(fake_model.requests[2]) == "c"
    for gate in gates.values():
        gate.set()
    done = await settled(engine, run.run_id)
    assert done.status == "completed"
    assert step_of(fake_model.requests[-1]) == "join"
    join_prompt = user_prompt(fake_model.requests[-1])
    assert all(f"output of {n}" in join_prompt for n in "abcd")


async def test_cancel_v2_run_stops_running_nodes(engine: svc.Engine, fake_model: Any) -> None:
    hold = trio.Event()
    fake_model.default = lambda request: Turn.reply("never finished", gate=hold)
    automation = await engine.automations.create_v2(
        v2_spec([node("slow", "worker"), node("after", "worker", deps=["slow"])])
    )
    run = await engine.automations.create_v2_run(automation.automation_id)
    await fake_model.wait_for_requests(1)
    assert await engine.automations.cancel_v2_run(run.run_id, "operator changed plans") is True
    cancelled = await engine.automations.get_v2_run(run.run_id)
    assert cancelled.status == "cancelled" and cancelled.detail == "operator changed plans"
    assert (
        cancelled.nodes["slow"].status == "cancelled"
        and cancelled.nodes["after"].status == "cancelled"
    )
    event = await wait_for_event(engine, "run.cancelled", run_id=run.run_id)
    assert event.properties["reason"] == "operator changed plans"
    session_run = await engine.sessions.repo.get_run(cancelled.nodes["slow"].session_run_id)
    assert session_run.status == "cancelled"
    assert await engine.automations.cancel_v2_run(run.run_id) is False
    hold.set()


async def test_a_queued_run_can_be_cancelled_before_it_starts(
    engine: svc.Engine, fake_model: Any
) -> None:
    hold = trio.Event()
    fake_model.default = lambda request: Turn.reply("x", gate=hold)
    automation = await engine.automations.create_v2(v2_spec([node("only", "worker")]))
    engine.automations.v2_pool.limiter.total_tokens = 1
    first = await engine.automations.create_v2_run(automation.automation_id)
    second = await engine.automations.create_v2_run(automation.automation_id)
    await fake_model.wait_for_requests(1)
    assert (await engine.automations.get_v2_run(second.run_id)).status == "queued"
    assert await engine.automations.cancel_v2_run(second.run_id, "not needed")
    hold.set()
    assert (await settled(engine, first.run_id)).status == "completed"
    assert (await engine.automations.get_v2_run(second.run_id)).status == "cancelled"
    assert len(fake_model.requests) == 1


async def test_run_ids_are_idempotent_and_snapshots_are_frozen(
    engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    automation = await engine.automations.create_v2(
        v2_spec([node("one", "worker", "the original objective")])
    )
    pinned = dict(automation.spec)
    await engine.automations.v2.patch(
        automation.automation_id,
        {"flow": {"nodes": [node("one", "worker", "an edited objective")]}},
    )
    run = await engine.automations.create_v2_run(
        automation.automation_id,
        run_id="goal-run-1",
        snapshot=pinned,
        trigger_type="goal",
        trigger_reason="hop 1",
    )
    again = await engine.automations.create_v2_run(automation.automation_id, run_id="goal-run-1")
    assert again.run_id == "goal-run-1" and again.definition_hash == run.definition_hash
    assert run.definition_hash == engine.automations.definition_hash(pinned)
    done = await settled(engine, "goal-run-1")
    assert done.trigger_type == "goal" and done.trigger_reason == "hop 1"
    assert "Objective: the original objective" in user_prompt(fake_model.requests[0])
    assert len(fake_model.requests) == 1


async def test_a_failed_node_fails_the_run_and_skips_its_dependants(
    engine: svc.Engine, fake_model: Any
) -> None:
    def answer(request: Any) -> Turn:
        step = step_of(request)
        return (
            Turn.failure(400, "bad request for " + str(step))
            if step == "broken"
            else Turn.reply(f"ok {step}")
        )

    fake_model.default = answer
    automation = await engine.automations.create_v2(
        v2_spec(
            [
                node("broken", "worker"),
                node("downstream", "worker", deps=["broken"]),
                node("independent", "worker"),
            ],
            parallel=2,
        )
    )
    run = await engine.automations.create_v2_run(automation.automation_id)
    done = await settled(engine, run.run_id)
    assert done.status == "failed"
    assert (
        done.nodes["broken"].status == "failed"
        and "bad request for broken" in done.nodes["broken"].error
    )
    assert done.nodes["downstream"].status == "skipped"
    assert done.nodes["independent"].status == "completed"
    assert done.node_outputs == {"independent": "ok independent"}
    failed = await wait_for_event(engine, "run.failed", run_id=run.run_id)
    assert failed.properties["failedNodes"] == ["broken", "downstream"]


async def test_an_approval_gate_waits_for_a_human_decision(
    engine: svc.Engine, fake_model: Any
) -> None:
    fake_model.default = replies_by_step()
    automation = await engine.automations.create_v2(
        v2_spec(
            [
                node("draft", "worker"),
                node("approve", "worker", "check the draft", deps=["draft"], stage_kind="approval"),
                node("publish", "worker", deps=["approve"]),
            ]
        )
    )
    run = await engine.automations.create_v2_run(automation.automation_id)
    required = await wait_for_event(engine, "approval.required", run_id=run.run_id)
    assert required.properties["nodeID"] == "approve"
    waiting = await engine.automations.get_v2_run(run.run_id)
    assert waiting.status == "awaiting_approval" and waiting.awaiting_gate["upstream_node_ids"] == [
        "draft"
    ]
    assert [step_of(r) for r in fake_model.requests] == ["draft"]

    decided = await engine.automations.v2.decide_gate(run.run_id, "approve", reason="looks right")
    assert decided.status == "queued"
    done = await settled(engine, run.run_id)
    assert done.status == "completed" and done.gate_history[0]["decision"] == "approve"
    assert [step_of(r) for r in fake_model.requests] == ["draft", "publish"]
    # The gate passes its own inputs on: publish sees the draft.
    assert "output of draft" in user_prompt(fake_model.requests[1])
