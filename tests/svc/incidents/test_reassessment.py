"""Continuous reassessment under a MockClock: comparison, schedule, triggers, the tick."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import attrs
import pytest
import trio
import trio.testing

import svc
from svc.clock import TrioClock
from svc.events import EventFilter, EventStream
from svc.incidents.config import Destination, Reassessment, Route, parse_config

HOUR_MS = 3_600_000
CADENCE_MS, GRACE_MS = HOUR_MS, 600_000


@pytest.fixture
async def engine(
    settings: svc.Settings, mock_clock: trio.testing.MockClock
) -> AsyncIterator[svc.Engine]:
    async with svc.open_engine(settings, clock=TrioClock()) as eng:
        yield eng


def routine(routine_id: str, tools: list[str]) -> dict[str, Any]:
    return {
        "routine_id": routine_id,
        "name": routine_id,
        "schedule": {"interval_seconds": {"seconds": 86_400}},
        "entrypoint": "mission.default",
        "args": {"prompt": "work"},
        "allowed_tools": tools,
        "output_targets": [],
    }


async def add_routine(engine: svc.Engine, routine_id: str, tools: list[str]) -> None:
    await engine.automations.routines.create(routine(routine_id, tools))


async def configure(engine: svc.Engine, **changes: Any) -> None:
    config = parse_config(
        {
            "enabled": True,
            "destinations": [
                {
                    "destination_id": "telemetry",
                    "name": "T",
                    "kind": "telemetry",
                    "telemetry_path": "t.jsonl",
                }
            ],
            "default_destination_ids": ["telemetry"],
            "reassessment": {"cadence_ms": CADENCE_MS, "overdue_grace_ms": GRACE_MS},
        }
    )
    await engine.incidents.save_config(attrs.evolve(config, **changes))


def high_risk_fingerprints(record: dict[str, Any]) -> dict[str, str]:
    return {
        f["evidence_refs"][0]["path"]: f["fingerprint"]
        for f in record["findings"]
        if f["rule_id"] == "high_risk_tool_without_approval"
    }


async def test_second_run_reports_one_resolved_one_new_and_the_rest_recurring(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    security = engine.incidents.security
    await configure(engine)
    await add_routine(engine, "steady", ["write"])
    await add_routine(engine, "fixed-later", ["bash"])
    first = (await security.reassess_now())["reassessment"]
    assert first["version"] == 1 and first["trigger"] == "manual"
    assert all(f["status"] == "new" and f["occurrence_count"] == 1 for f in first["findings"])
    before = high_risk_fingerprints(first)

    mock_clock.jump(60)
    await engine.automations.routines.delete("fixed-later")
    await add_routine(engine, "added", ["bash"])
    second = (await security.reassess_now())["reassessment"]
    after = high_risk_fingerprints(second)
    comparison = second["comparison"]
    assert comparison["previous_version"] == 1 and second["version"] == 2
    assert comparison["resolved_fingerprints"] == [before["routine/fixed-later"]]
    assert comparison["new_fingerprints"] == [after["routine/added"]]
    recurring = set(comparison["recurring_fingerprints"])
    assert recurring == {f["fingerprint"] for f in first["findings"]} - {
        before["routine/fixed-later"]
    }
    steady = next(f for f in second["findings"] if f["fingerprint"] == after["routine/steady"])
    assert steady["status"] == "recurring" and steady["occurrence_count"] == 2
    assert steady["first_seen_at_ms"] == first["generated_at_ms"] < steady["last_seen_at_ms"]
    listed = await security.reassessments()
    assert [r["version"] for r in listed["records"]] == [2, 1]


async def test_schedule_turns_overdue_after_cadence_plus_grace(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    security = engine.incidents.security
    await configure(engine, paused=True)  # paused: the tick runs nothing on its own
    [row] = (await security.reassessments())["schedule"]
    assert row["last_completed_at_ms"] is None and row["overdue"] is False
    done = (await security.reassess_now())["reassessment"]
    [row] = (await security.reassessments())["schedule"]
    assert row["last_completed_at_ms"] == done["generated_at_ms"]
    assert row["next_due_at_ms"] == done["generated_at_ms"] + CADENCE_MS
    mock_clock.jump((CADENCE_MS + GRACE_MS) / 1000)
    [row] = (await security.reassessments())["schedule"]
    assert row["overdue"] is False  # exactly at the limit: not yet
    mock_clock.jump(1)
    listed = await security.reassessments()
    assert listed["schedule"][0]["overdue"] is True
    assert listed["counts"]["overdue_scopes"] == 1


async def completed(engine: svc.Engine, after: int) -> dict[str, Any]:
    with EventStream(engine.events, EventFilter(topic="audit"), after_seq=after) as stream:
        while True:
            for event in await stream.receive():
                if event.type == "incident_monitor.reassessment.completed":
                    return dict(event.properties)


async def test_config_changes_queue_one_trigger_and_the_tick_runs_it(
    engine: svc.Engine, mock_clock: trio.testing.MockClock
) -> None:
    await configure(engine)
    await engine.incidents.monitor.tick()  # the tick's first look starts its period
    config = engine.incidents.config
    route = Route(name="r", route_id="r", destination_ids=["telemetry"])
    await engine.incidents.save_config(attrs.evolve(config, routes=[route]))
    extra = Destination(destination_id="t2", name="T2", kind="telemetry", telemetry_path="x")
    await engine.incidents.save_config(
        attrs.evolve(engine.incidents.config, destinations=[*config.destinations, extra])
    )
    triggered = [
        e
        for e in await engine.incidents.ledger.entries(domain="incident_monitor")
        if e.type == "incident_monitor.reassessment.triggered"
    ]
    assert len(triggered) == 1  # one pending trigger per scope
    assert triggered[0].payload["trigger"] == "destination_or_route_change"
    seq = engine.events.committed_seq
    mock_clock.jump(15 * 60)
    with trio.fail_after(5):
        props = await completed(engine, seq)
    assert props["trigger"] == "destination_or_route_change"
    seq = engine.events.committed_seq
    mock_clock.jump(CADENCE_MS / 1000)  # due by cadence next
    with trio.fail_after(5):
        props = await completed(engine, seq)
    assert props["trigger"] == "scheduled"


def test_reassessment_config_defaults() -> None:
    assert Reassessment().cadence_ms == 7 * 24 * HOUR_MS
