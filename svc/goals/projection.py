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
from .orchestration import Orchestration, edge_wire
from .readmodels import budgets, run_status, workflow_progress
from .runtime import GoalRuntime, PinnedVersion
from .tenancy import APPROVE, RESOLVE_WAIT, Caller, owner_id_of
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


# ---------------------------------------------------------------------- graph
def node_state(
    node_id: str,
    goal: Goal,
    spec: Orchestration,
    links: list[RunLink],
    statuses: Mapping[str, str],
    waits: list[Wait],
    handoffs: list[Handoff],
) -> str:
    node = spec.node(node_id)
    current = node_id == goal.current_node_id
    if current and node is not None and node.is_terminal:
        return {"completed": "completed", "failed": "failed", "paused": "paused"}.get(
            goal.status, "running"
        )
    if current and goal.status == "paused":
        return "paused"
    node_links = [lk for lk in links if lk.orchestration_node_id == node_id]
    if current:
        for wait in waits:
            if wait.open and any(lk.run_id == wait.run_id for lk in node_links):
                return {"timer": "timer_wait", "external_condition": "external_wait"}.get(
                    wait.wait_kind, "approval"
                )
        outgoing = [h for h in handoffs if h.source_node_id == node_id]
        if any(h.status == "pending_approval" for h in outgoing):
            return "approval"
        if any(h.status in ("approved", "claimed") for h in outgoing):
            return "claiming"
    if not node_links:
        return "not_started"
    status = statuses.get(node_links[-1].run_id, "pending")
    if status in ("completed",):
        return "completed"
    if status in ("failed", "cancelled", "blocked"):
        return "failed"
    if status == "awaiting_approval":
        return "approval"
    if status == "waiting":
        return "external_wait"
    return "running"


def semantic_graph(
    goal: Goal,
    spec: Orchestration,
    links: list[RunLink],
    statuses: Mapping[str, str],
    waits: list[Wait],
    handoffs: list[Handoff],
) -> dict[str, Any]:
    nodes = [
        {
            "node_id": node.node_id,
            "name": node.name,
            "kind": node.kind,
            "state": node_state(node.node_id, goal, spec, links, statuses, waits, handoffs),
            "runs": [
                {"run_id": lk.run_id, "hop_index": lk.hop_index, "status": statuses.get(lk.run_id)}
                for lk in links
                if lk.orchestration_node_id == node.node_id
            ],
        }
        for node in spec.nodes
    ]
    edges = []
    for edge in spec.edges:
        mine = [h for h in handoffs if h.edge_id == edge.edge_id]
        latest = mine[-1] if mine else None
        target = spec.node(edge.to_node_id)
        if (
            latest is None
            and target is not None
            and target.is_terminal
            and goal.current_node_id == target.node_id
        ):
            state = "taken"  # completion settles along a terminal edge without a handoff
        elif latest is None:
            state = (
                "eligible"
                if edge.from_node_id == goal.current_node_id and not goal.terminal
                else "not_started"
            )
        elif latest.status == "consumed":
            state = "taken"
        elif latest.status in ("pending_approval", "approved", "claimed"):
            state = "claiming"
        else:
            state = "not_started"
        edges.append(
            {
                "edge": edge_wire(edge),
                "state": state,
                "handoff_id": latest.handoff_id if latest else None,
            }
        )
    return {"nodes": nodes, "edges": edges, "available": True}


# ---------------------------------------------------------------------- actions
def _descriptor(
    action_id: str,
    kind: str,
    label: str,
    *,
    enabled: bool,
    destructive: bool,
    reason_required: bool,
    impact: str,
    disabled_reason: str | None = None,
    decision_options: list[str] | None = None,
    target_id: str | None = None,
    payload_fields: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "id": action_id,
        "kind": kind,
        "label": label,
        "enabled": enabled,
        "destructive": destructive,
        "reason_required": reason_required,
        "decision_options": decision_options or [],
        "target_id": target_id,
        "impact": impact,
        "disabled_reason": None if enabled else disabled_reason,
        "payload_fields": payload_fields or [],
    }


def action_descriptors(
    goal: Goal,
    handoffs: list[Handoff],
    waits: list[Wait],
    caller: Caller,
    *,
    read_only: bool = False,
) -> list[dict[str, Any]]:
    """What the caller may do to the goal now; each action is listed enabled or with a disabled
    reason."""
    owner = caller.owns(owner_id_of(goal.started_by))

    def gate(reason: str | None, *, authorized: bool = True) -> tuple[bool, str | None]:
        if read_only:
            return False, "historical_projection_read_only"
        if reason is not None:
            return False, reason
        if not authorized:
            return False, "not_authorized"
        return True, None

    terminal = "goal_terminal" if goal.terminal else None
    actions = []
    enabled, why = gate(
        terminal or ("goal_already_paused" if goal.status == "paused" else None), authorized=owner
    )
    actions.append(
        _descriptor(
            "pause",
            "pause",
            "Pause goal",
            enabled=enabled,
            destructive=True,
            reason_required=True,
            impact="stops new handoffs until resumed",
            disabled_reason=why,
        )
    )
    enabled, why = gate(
        terminal or ("goal_not_paused" if goal.status != "paused" else None), authorized=owner
    )
    actions.append(
        _descriptor(
            "resume",
            "resume",
            "Resume goal",
            enabled=enabled,
            destructive=False,
            reason_required=False,
            impact="allows handoffs again",
            disabled_reason=why,
        )
    )
    enabled, why = gate(terminal, authorized=owner)
    actions.append(
        _descriptor(
            "cancel",
            "cancel",
            "Cancel goal",
            enabled=enabled,
            destructive=True,
            reason_required=True,
            impact="cancels the active run, its waits and unconsumed handoffs",
            disabled_reason=why,
        )
    )
    for handoff in handoffs:
        if handoff.status != "pending_approval":
            continue
        enabled, why = gate(terminal, authorized=caller.has_authority(APPROVE))
        actions.append(
            _descriptor(
                f"handoff:{handoff.handoff_id}:decision",
                "handoff",
                f"Decide handoff {handoff.transition_key} to {handoff.target_node_id}",
                enabled=enabled,
                destructive=True,
                reason_required=True,
                impact="approves or rejects the pending transition",
                disabled_reason=why,
                decision_options=["approve", "reject"],
                target_id=handoff.handoff_id,
            )
        )
    for wait in waits:
        if not (wait.open and wait.wait_kind == "external_condition"):
            continue
        enabled, why = gate(terminal, authorized=caller.has_authority(RESOLVE_WAIT))
        actions.append(
            _descriptor(
                f"wait:{wait.wait_id}:resolve",
                "wait",
                f"Resolve wait of node {wait.phase_id}",
                enabled=enabled,
                destructive=False,
                reason_required=False,
                impact="lets the waiting run start",
                disabled_reason=why,
                target_id=wait.wait_id,
                payload_fields=[
                    {"name": "value", "label": "Resolution", "required": False, "format": "json"}
                ],
            )
        )
    return actions


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "action_descriptors",
    "build_projection",
    "node_state",
    "semantic_graph",
]
