"""A goal's whole journey on the scripted model, with an engine restart in the middle.

Draft, validate, pin, publish, start; an agent hands off along an approval-gated edge (its
``handoff_emit`` call approved by a human as a tool permission, the handoff itself decided by a
human); the same transition retried commits; a second transition carries a build report to a
review node whose run waits on an external condition. The engine then restarts. Nothing is lost,
the event cursor resumes exactly (JSON pages and SSE with ``Last-Event-ID``), the wait is
resolved, the review run continues, and the goal completes with its final artifact.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import trio

import svc
from svc.events import parse_frames
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import text_prompt, wait_for_event
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import (
    BUILD_REPORT,
    PLAN,
    REPORT,
    create_workflows,
    run_settled,
    step_reply,
)

CONDITION = {
    "kind": "external_condition",
    "condition_key": {"source": "literal", "value": "release-window"},
    "payload_schema": {"type": "object", "required": ["window"]},
    "timeout": {"expires_after_ms": 86_400_000, "on_timeout": "escalate"},
}


async def agent_hands_off(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, goal_id: str
) -> None:
    """A session agent calls handoff_emit; a human allows the call; the edge answers
    pending_approval."""
    fake_model.enqueue(
        Turn.calls(
            FakeToolCall(
                "handoff_emit",
                {
                    "goal_id": goal_id,
                    "transition_key": "planned",
                    "artifact": PLAN,
                    "idempotency_key": "agent-plan",
                },
                id="c1",
            )
        ),
        Turn.reply("The plan is handed off and waits for approval."),
    )
    sid = (await client.post("/session", json={"title": "release agent"})).json()["id"]
    started = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        json=text_prompt("Hand the plan to the build stage."),
    )
    assert started.status_code == 202, started.text
    run_id = started.json()["runID"]
    asked = await wait_for_event(engine, "permission.asked", session_id=sid)
    assert asked.properties["tool"] == "handoff_emit"
    reply = await client.post(
        f"/permission/{asked.properties['requestID']}/reply", json={"reply": "once"}
    )
    assert reply.status_code == 200, reply.text
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert finished.properties["status"] == "completed"
    tool_message = next(m for m in fake_model.requests[-1].body["messages"] if m["role"] == "tool")
    assert json.loads(tool_message["content"])["outcome"] == "pending_approval"


async def read_until(
    response: httpx.Response, done: Callable[[dict[str, str]], bool]
) -> list[dict[str, str]]:
    frames: list[dict[str, str]] = []
    buffer = ""
    with trio.CancelScope() as scope:
        async for chunk in response.aiter_text():
            buffer += chunk
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                frames.extend(parse_frames(block + "\n\n"))
            if frames and done(frames[-1]):
                scope.cancel()
    return frames


async def test_goal_journey_survives_a_restart(
    model_settings: svc.Settings, fake_model: Any
) -> None:
    fake_model.default = step_reply
    async with (
        svc.open_engine(model_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as client,
    ):
        await create_workflows(engine, "wf-plan", "wf-build", "wf-review")
        spec = linear_spec(review="wf-review", approval_on="e1", wait=CONDITION)
        draft = await client.post("/orchestrations", json=spec)
        assert draft.status_code == 201
        assert (await client.post("/orchestrations/release-loop/validate")).json()["report"][
            "valid"
        ] is True
        pinned = await client.post(
            "/orchestrations/release-loop/refresh-references",
            json={"expected_updated_at_ms": draft.json()["updated_at_ms"]},
        )
        published = await client.post(
            "/orchestrations/release-loop/publish",
            json={"expected_updated_at_ms": pinned.json()["orchestration"]["updated_at_ms"]},
        )
        assert published.status_code == 201 and published.json()["version"] == 1

        start = {
            "orchestration_id": "release-loop",
            "objective": "Ship 1.4 after verification",
            "idempotency_key": "release-1.4",
            "metadata": {"release": "1.4"},
        }
        started = await client.post("/goals", json=start)
        assert started.status_code == 201
        goal_id = started.json()["goal"]["goal_id"]
        assert (await client.post("/goals", json=start)).json()["replayed"] is True
        await run_settled(engine, started.json()["root_run_id"])

        # Transition 1: the agent's handoff is approval-gated; a human approves; the retry commits.
        await agent_hands_off(client, engine, fake_model, goal_id)
        [pending] = (await client.get(f"/goals/{goal_id}/handoffs")).json()["handoffs"]
        assert (
            pending["status"] == "pending_approval"
            and pending["metadata"]["actor"]["kind"] == "agent"
        )
        decided = await client.post(
            f"/goals/{goal_id}/handoffs/{pending['handoff_id']}/decision",
            json={"decision": "approve", "reason": "plan reviewed"},
        )
        assert decided.json()["handoff"]["status"] == "approved"
        first = await client.post(
            f"/goals/{goal_id}/transitions",
            json={"transition_key": "planned", "idempotency_key": "agent-plan", "artifact": PLAN},
        )
        assert first.status_code == 200 and first.json()["commit"] == "Committed"
        await run_settled(engine, first.json()["downstream_run_id"])

        # Transition 2: the build report goes to review, whose run waits on the release window.
        second = await client.post(
            f"/goals/{goal_id}/transitions",
            json={
                "transition_key": "built",
                "idempotency_key": "build-report",
                "artifact": BUILD_REPORT,
            },
        )
        assert second.status_code == 200, second.text
        review_run = second.json()["downstream_run_id"]
        [wait] = (await client.get(f"/goals/{goal_id}/waits")).json()["waits"]
        assert wait["status"] == "waiting" and wait["run_id"] == review_run
        before = (await client.get(f"/goals/{goal_id}/events")).json()
        goal_before = (await client.get(f"/goals/{goal_id}")).json()["goal"]
        last_cursor = before["last_cursor"]

    # ---------------------------------------------------------------- restart
    async with (
        svc.open_engine(model_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as client,
    ):
        assert engine.actors.lookup(f"goal/{goal_id}") is not None
        assert (await client.get(f"/goals/{goal_id}")).json()["goal"] == goal_before
        assert (await client.get(f"/goals/{goal_id}/events")).json() == before  # nothing lost
        assert (
            await client.get(f"/goals/{goal_id}/events", params={"cursor": last_cursor})
        ).json()["count"] == 0
        assert await engine.automations.get_v2_run(review_run) is None  # still held by its wait

        async with client.stream(
            "GET", f"/goals/{goal_id}/events/stream", headers={"Last-Event-ID": str(last_cursor)}
        ) as stream:
            frames: list[dict[str, str]] = []

            async def follow() -> None:
                frames.extend(
                    await read_until(
                        stream, lambda f: f.get("event") == "stateful_runtime.goal.terminal"
                    )
                )

            async with trio.open_nursery() as nursery:
                nursery.start_soon(follow)
                resolved = await client.post(
                    f"/goals/{goal_id}/waits/{wait['wait_id']}/resolve",
                    json={"idempotency_key": "window-open", "payload": {"window": "friday 10:00"}},
                )
                assert resolved.status_code == 200 and resolved.json()["wait"]["status"] == "woken"
                review = await run_settled(engine, review_run)
                assert review.status == "completed"
                assert review.context["input_artifact"] == BUILD_REPORT
                assert review.context["wait"]["resolution"] == {"window": "friday 10:00"}
                done = await client.post(
                    f"/goals/{goal_id}/completion",
                    json={"transition_key": "done", "final_artifact": REPORT},
                )
                assert done.status_code == 200 and done.json()["goal"]["status"] == "completed"

        after = (
            await client.get(f"/goals/{goal_id}/events", params={"cursor": last_cursor})
        ).json()
        new_types = [e["event"]["event_type"] for e in after["events"]]
        assert new_types == [
            "stateful_runtime.wait.external_condition_resolved",
            "stateful_runtime.run.started",
            "stateful_runtime.run.settled",
            "stateful_runtime.goal.terminal",
        ]
        new_cursors = [e["cursor"] for e in after["events"]]
        assert new_cursors == sorted(new_cursors) and new_cursors[0] > last_cursor
        assert (
            frames[0]["event"] == "ready" and json.loads(frames[0]["data"])["cursor"] == last_cursor
        )
        assert [int(f["id"]) for f in frames[1:]] == new_cursors  # the SSE resumed exactly there
        everything = (await client.get(f"/goals/{goal_id}/events")).json()["events"]
        assert everything == before["events"] + after["events"]

        goal = (await client.get(f"/goals/{goal_id}")).json()
        assert goal["status"] == "completed" and goal["budgets"]["consumed"]["hops"] == 2
        assert (
            goal["goal"]["final_artifact"] == REPORT and goal["goal"]["orchestration_version"] == 1
        )
        artifacts = (await client.get(f"/goals/{goal_id}/artifacts")).json()
        assert [a["artifact"] for a in artifacts["artifacts"]] == [PLAN, BUILD_REPORT]
        assert artifacts["final_artifact"] == REPORT
        runs = (await client.get(f"/goals/{goal_id}/runs")).json()["runs"]
        assert [
            (r["link"]["hop_index"], r["link"]["orchestration_node_id"], r["run"]["status"])
            for r in runs
        ] == [(0, "plan", "completed"), (1, "build", "completed"), (2, "review", "completed")]
        graph = (await client.get(f"/goals/{goal_id}/graph")).json()
        assert {n["node_id"]: n["state"] for n in graph["nodes"]} == {
            "plan": "visited",
            "build": "visited",
            "review": "visited",
            "finish": "current",
        }
        projection = (await client.get(f"/goals/{goal_id}/projection")).json()
        assert projection["graph"]["nodes"][-1]["state"] == "completed"
        assert {e["edge"]["edge_id"]: e["state"] for e in projection["graph"]["edges"]} == {
            "e1": "taken",
            "e2": "taken",
            "e9": "taken",
        }
