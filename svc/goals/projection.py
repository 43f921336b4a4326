"""The goal projection: one document a control panel renders, live or as of a cursor.

``mode`` is ``live`` (the current state) or ``replay`` (the state right after the newest
retained event at or before ``cursor``, read from that event's snapshot). The timeline is
the newest ``limit`` goal events up to the cursor. ``actions[]`` lists what the caller can
do now, each enabled or disabled with a reason; replayed projections are read-only.
A cursor older than the oldest retained event is 410 ``projection_cursor_not_retained``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import HistoricalProjectionUnavailable, ProjectionCursorNotRetained
from .events import RUN_SETTLED, RUN_STARTED, GoalEvent
from .goal import Goal, Handoff, RunLink, Wait
from .projection_actions import action_descriptors
from .projection_graph import semantic_graph
from .readmodels import budgets, run_status, workflow_progress
from .runtime import GoalRuntime, PinnedVersion
from .tenancy import Caller
from .workflows import WorkflowRun

SCHEMA_VERSION = 1
DEFAULT_LIMIT = 100
MAX_LIMIT = 250
LIVE_LIST_CAP = 250


async def build_projection(
    rt: GoalRuntime,
    goal: Goal,
    pinned: PinnedVersion,
    caller: Caller,
    *,
    cursor: int | None,
    limit: int = DEFAULT_LIMIT,
) -> dict[str, Any]:
    retained_from, live_cursor = await rt.event_repo.event_bounds(goal.goal_id)
    if cursor is not None and live_cursor > 0 and cursor < retained_from:
        raise ProjectionCursorNotRetained(
            f"cursor {cursor} is older than the oldest retained goal event ({retained_from})",
            retained_from_cursor=retained_from,
        )
    window = await rt.event_repo.events_window(goal.goal_id, cursor, limit)
    if cursor is None:
        mode = "live"
        state_goal = goal
        links = await rt.repo.links(goal.goal_id)
        handoffs = (await rt.repo.handoffs(goal.goal_id))[-LIVE_LIST_CAP:]
        waits = (await rt.repo.waits(goal.goal_id))[-LIVE_LIST_CAP:]
        runs = {lk.run_id: await rt.workflows.run(lk.run_id) for lk in links[-LIVE_LIST_CAP:]}
        statuses = {lk.run_id: run_status(lk, runs, waits) for lk in links}
        links = links[-LIVE_LIST_CAP:]
        historical = {"source": "current_goal", "exact": True}
    else:
        mode = "replay"
        snapshot_event = next((e for e in reversed(window) if e.snapshot), None)
        if snapshot_event is None:
            raise HistoricalProjectionUnavailable(
                f"no projection snapshot is retained at or before cursor {cursor}"
            )
        state_goal, links, handoffs, waits = _from_snapshot(snapshot_event.snapshot or {})
        runs = {}
        statuses = _replayed_statuses(links, waits, window)
        historical = {
            "source": "projection_snapshot",
            "exact": True,
            "snapshot_cursor": snapshot_event.cursor,
        }
    response_cursor = (
        window[-1].cursor
        if window
        else min(cursor if cursor is not None else live_cursor, live_cursor)
    )
    orchestration = goal.orchestration_snapshot
    source = "goal_metadata_snapshot"
    if orchestration is None:
        orchestration, source = pinned.spec.to_wire(), "published_definition_fallback"
    return {
        "schema_version": SCHEMA_VERSION,
        "goal_id": goal.goal_id,
        "mode": mode,
        "cursor": response_cursor,
        "live_cursor": live_cursor,
        "retained_from_cursor": retained_from,
        "goal": state_goal.to_wire(),
        "historical_state": historical,
        "orchestration": orchestration,
        "orchestration_source": source,
        "graph": semantic_graph(state_goal, pinned.spec, links, statuses, waits, handoffs),
        "workflow": _workflow(state_goal, runs, statuses, pinned),
        "waits": [w.to_wire() for w in waits],
        "handoffs": [h.to_wire() for h in handoffs],
        "artifacts": [
            {
                "artifact": h.artifact,
                "handoff_id": h.handoff_id,
                "source_run_id": h.source_run_id,
                "consumed_by_run_id": h.consumed_by_run_id,
            }
            for h in handoffs
        ],
        "recovery": None,
        "budgets": budgets(state_goal, rt.now()),
        "timeline": {
            "events": [e.to_wire() for e in window],
            "count": len(window),
            "limit": limit,
            "truncated": len(window) == limit and bool(window) and window[0].cursor > retained_from,
        },
        "actions": action_descriptors(
            state_goal, handoffs, waits, caller, read_only=mode == "replay"
        ),
    }


def _from_snapshot(
    snapshot: Mapping[str, Any],
) -> tuple[Goal, list[RunLink], list[Handoff], list[Wait]]:
    goal = Goal.from_store(snapshot["goal"])
    return (
        goal,
        [RunLink.from_store(x) for x in snapshot.get("links", [])],
        [Handoff.from_store(x) for x in snapshot.get("handoffs", [])],
        [Wait.from_store(x) for x in snapshot.get("waits", [])],
    )


def _replayed_statuses(
    links: list[RunLink], waits: list[Wait], window: list[GoalEvent]
) -> dict[str, str]:
    """Run statuses as the goal's own events recorded them up to the cursor."""
    statuses = {lk.run_id: run_status(lk, {}, waits) for lk in links}
    for event in window:
        run_id = event.record.get("payload", {}).get("run_id")
        if event.event_type == RUN_STARTED and run_id in statuses:
            statuses[run_id] = "running"
        elif event.event_type == RUN_SETTLED and run_id in statuses:
            statuses[run_id] = str(event.record["payload"].get("status"))
    return statuses


def _workflow(
    goal: Goal,
    runs: Mapping[str, WorkflowRun | None],
    statuses: Mapping[str, str],
    pinned: PinnedVersion,
) -> dict[str, Any] | None:
    run_id = goal.active_run_id
    if run_id is None:
        return None
    run = runs.get(run_id)
    if run is None:
        return {
            "run_id": run_id,
            "automation_id": None,
            "status": statuses.get(run_id),
            "stage": None,
            "checkpoint": None,
            "outputs": {},
            "retries": None,
        }
    progress = workflow_progress(run, pinned.snapshots.get(run.automation_id))
    return {
        "run_id": run.run_id,
        "automation_id": run.automation_id,
        "status": run.status,
        "stage": progress["current_node_id"],
        "checkpoint": {
            "completed_nodes": progress["completed_nodes"],
            "pending_nodes": progress["pending_nodes"],
            "blocked_nodes": [],
        },
        "outputs": dict(run.node_outputs),
        "retries": {"attempts": {}, "verdicts": {}, "last_failure": None},
    }


__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "build_projection"]
