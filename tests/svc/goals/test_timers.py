"""Deadlines and wait timers under a MockClock: the goal actor's cancel-scope deadline and wake-ups.

Time moves only when a test jumps the clock, and only while no model request is in flight.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio
import trio.testing

import svc
from svc.clock import TrioClock
from svc.goals import LOCAL_CALLER, StartGoal, parse_spec
from tests.helpers import wait_for_event
from tests.svc.goals.specs import linear_spec
from tests.svc.goals.support import create_workflows, step_reply

HOUR_MS = 3_600_000
CONDITION = {
    "kind": "external_condition",
    "condition_key": {"source": "literal", "value": "go"},
    "timeout": {"expires_after_ms": 10 * HOUR_MS, "on_timeout": "escalate"},
}


@pytest.fixture
async def engine(
    settings: svc.Settings, mock_clock: trio.testing.MockClock, fake_model: Any
) -> AsyncIterator[svc.Engine]:
    fake_model.default = step_reply
    async with svc.open_engine(settings, clock=TrioClock()) as eng:
        await create_workflows(eng, "wf-plan", "wf-build")
        yield eng


async def goal_with(
    engine: svc.Engine, *, root_wait: dict[str, Any] | None = None, **policy: Any
) -> str:
    body = linear_spec(goal_policy={"max_hops": 10, **policy} if policy else None)
    if root_wait is not None:
        body["nodes"][0]["wait"] = root_wait
    orchestrations = engine.goals.orchestrations
    draft = await orchestrations.create_draft(LOCAL_CALLER, parse_spec(body))
    await orchestrations.refresh_references(
        LOCAL_CALLER, draft.orchestration_id, draft.updated_at_ms
    )
    await orchestrations.publish(LOCAL_CALLER, draft.orchestration_id, None)
    started = await engine.goals.start(LOCAL_CALLER, StartGoal("release-loop", "ship", "k"))
    return str(started["goal"]["goal_id"])


def for_goal(goal_id: str) -> Any:
    return lambda event: event.properties.get("goalID") == goal_id


async def goal(engine: svc.Engine, goal_id: str) -> Any:
    return await engine.goals.goal(LOCAL_CALLER, goal_id)


async def test_the_deadline_pauses_a_goal_for_review(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    deadline = engine.clock.now_ms() + HOUR_MS
    goal_id = await goal_with(engine, root_wait=CONDITION, deadline_at_ms=deadline)
    mock_clock.jump(HOUR_MS / 1000 - 1)
    await trio.testing.wait_all_tasks_blocked()
    assert (await goal(engine, goal_id)).status == "active"
    mock_clock.jump(2)
    await wait_for_event(engine, "orchestration.goal.paused", where=for_goal(goal_id))
    paused = await goal(engine, goal_id)
    assert (paused.status, paused.status_reason) == ("paused", "deadline")
    events = await engine.goals.event_list(goal_id)
    limit = next(e for e in events if e.event_type == "stateful_runtime.goal.limit_reached")
    assert (
        limit.record["payload"]["limit"] == "deadline"
        and limit.record["payload"]["status"] == "paused"
    )
    waits = (await engine.goals.waits(LOCAL_CALLER, goal_id))["waits"]
    assert waits[0]["status"] == "waiting"  # a review keeps what is open
    budgets = (await engine.goals.budgets(LOCAL_CALLER, goal_id))["budgets"]
    assert budgets["remaining"]["deadline_ms"] == 0


async def test_a_failing_deadline_expires_the_goal_and_settles_it(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    goal_id = await goal_with(
        engine, root_wait=CONDITION, deadline_at_ms=engine.clock.now_ms() + HOUR_MS, on_limit="fail"
    )
    mock_clock.jump(HOUR_MS / 1000 + 1)
    await wait_for_event(engine, "orchestration.goal.terminal", where=for_goal(goal_id))
    expired = await goal(engine, goal_id)
    assert expired.status == "expired" and expired.finished_at_ms is not None
    waits = (await engine.goals.waits(LOCAL_CALLER, goal_id))["waits"]
    assert waits[0]["status"] == "cancelled"
    assert engine.actors.lookup(f"goal/{goal_id}") is None  # an ended goal releases its actor


async def test_the_deadline_survives_a_restart(
    settings: svc.Settings, mock_clock: trio.testing.MockClock, fake_model: Any
) -> None:
    fake_model.default = step_reply
    async with svc.open_engine(settings, clock=TrioClock()) as first:
        await create_workflows(first, "wf-plan", "wf-build")
        goal_id = await goal_with(
            first, root_wait=CONDITION, deadline_at_ms=first.clock.now_ms() + HOUR_MS
        )
        wall = first.clock.now_ms()
    async with svc.open_engine(settings, clock=TrioClock(epoch_ms=wall)) as again:
        # Start-up gave the open goal its actor back, deadline armed.
        assert again.actors.lookup(f"goal/{goal_id}") is not None
        mock_clock.jump(HOUR_MS / 1000 + 1)
        await wait_for_event(again, "orchestration.goal.paused", where=for_goal(goal_id))
        assert (await again.goals.goal(LOCAL_CALLER, goal_id)).status_reason == "deadline"


async def test_a_timer_holds_the_run_until_it_fires(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    goal_id = await goal_with(engine, root_wait={"kind": "timer", "delay_ms": 60_000})
    root = (await goal(engine, goal_id)).active_run_id
    assert await engine.automations.get_v2_run(root) is None
    mock_clock.jump(61)
    await wait_for_event(engine, "run.completed", run_id=root)
    [wait] = (await engine.goals.waits(LOCAL_CALLER, goal_id))["waits"]
    assert wait["status"] == "woken" and wait["wake_idempotency_key"].startswith("timer:")
    run = await engine.automations.get_v2_run(root)
    assert run.context["wait"]["wait_kind"] == "timer"


async def test_timeouts_escalate_and_remind(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    remind = {
        **CONDITION,
        "timeout": {"expires_after_ms": 10_000, "on_timeout": "remind", "remind_every_ms": 5_000},
    }
    goal_id = await goal_with(engine, root_wait=remind)
    for expected in (1, 2, 3):
        mock_clock.jump(10 if expected == 1 else 5)
        found = await _wait_goal_event(
            engine, goal_id, "stateful_runtime.wait.reminder", count=expected
        )
        assert found[-1].record["payload"]["reminder"] == expected
    [wait] = (await engine.goals.waits(LOCAL_CALLER, goal_id))["waits"]
    assert wait["status"] == "waiting"


async def test_escalation_keeps_the_wait_resolvable(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    escalate = {
        **CONDITION,
        "timeout": {"expires_after_ms": 10_000, "on_timeout": "escalate", "escalate_to": "on-call"},
    }
    goal_id = await goal_with(engine, root_wait=escalate)
    mock_clock.jump(11)
    [event] = await _wait_goal_event(engine, goal_id, "stateful_runtime.wait.escalated")
    assert event.record["payload"]["escalate_to"] == "on-call"
    [wait] = (await engine.goals.waits(LOCAL_CALLER, goal_id))["waits"]
    assert wait["status"] == "escalated"
    await engine.goals.resolve_wait(LOCAL_CALLER, goal_id, wait["wait_id"], "r1", {"ok": True})
    await wait_for_event(engine, "run.completed", run_id=wait["run_id"])


@pytest.mark.parametrize(
    ("on_limit", "status"), [("pause_for_review", "paused"), ("fail", "failed")]
)
async def test_a_cancelling_timeout_stops_the_goal_per_policy(
    engine: svc.Engine, mock_clock: trio.testing.MockClock, on_limit: str, status: str
) -> None:
    cancel = {**CONDITION, "timeout": {"expires_after_ms": 10_000, "on_timeout": "cancel"}}
    goal_id = await goal_with(engine, root_wait=cancel, on_limit=on_limit)
    mock_clock.jump(11)
    await _wait_goal_event(engine, goal_id, "stateful_runtime.goal.limit_reached")
    stopped = await goal(engine, goal_id)
    assert (stopped.status, stopped.status_reason) == (status, "wait_timeout")
    [wait] = (await engine.goals.waits(LOCAL_CALLER, goal_id))["waits"]
    assert wait["status"] == "timed_out"
    assert await engine.automations.get_v2_run(wait["run_id"]) is None


async def test_a_resuming_timeout_starts_the_run(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    resume = {**CONDITION, "timeout": {"expires_after_ms": 10_000, "on_timeout": "resume"}}
    goal_id = await goal_with(engine, root_wait=resume)
    root = (await goal(engine, goal_id)).active_run_id
    mock_clock.jump(11)
    await wait_for_event(engine, "run.completed", run_id=root)
    run = await engine.automations.get_v2_run(root)
    assert (
        run.context["wait"]["status"] == "timed_out" and run.context["wait"]["resolution"] is None
    )


async def _wait_goal_event(
    engine: svc.Engine, goal_id: str, event_type: str, *, count: int = 1
) -> list[Any]:
    """The goal's durable events of ``event_type`` once there are ``count`` of them (woken by the
    feed)."""
    with trio.fail_after(30):
        while True:
            changed = engine.goals.feed.changed
            found = [
                e
                for e in await engine.goals.event_list(goal_id, limit=1000)
                if e.event_type == event_type
            ]
            if len(found) >= count:
                return found
            await changed.wait()


async def test_after_a_deadline_review_the_goal_can_settle_but_not_hop(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    goal_id = await goal_with(engine, deadline_at_ms=engine.clock.now_ms() + HOUR_MS)
    root = (await goal(engine, goal_id)).active_run_id
    await wait_for_event(engine, "orchestration.goal.run_settled", where=for_goal(goal_id))
    assert (await engine.automations.get_v2_run(root)).status == "completed"
    mock_clock.jump(HOUR_MS / 1000 + 1)
    await wait_for_event(engine, "orchestration.goal.paused", where=for_goal(goal_id))
    resumed = await engine.goals.resume(LOCAL_CALLER, goal_id)
    assert resumed["goal"]["status"] == "active"
    await trio.testing.wait_all_tasks_blocked()
    assert (await goal(engine, goal_id)).status == "active"  # the deadline does not fire twice
    with pytest.raises(svc.goals.InvalidGoalRequest) as refused:
        await engine.goals.transition(
            LOCAL_CALLER,
            goal_id,
            svc.goals.TransitionBody(
                "planned", "t1", {"artifact_type": "plan", "value": {"steps": []}}
            ),
        )
    assert (
        refused.value.extra["limit"] == "deadline"
        and refused.value.extra["goal_status"] == "paused"
    )
    await engine.goals.resume(LOCAL_CALLER, goal_id)
    settled = await engine.goals.complete(LOCAL_CALLER, goal_id, svc.goals.CompletionBody())
    assert settled["outcome"] == "awaiting_transition"
