"""The mission reducer: ``(mission, event) -> (mission, commands)``. Pure: no clock, no I/O.

Work items move ``todo → in_progress`` (run started) ``→ review`` (run
succeeded; a review approval is requested) ``→ test`` (review approved; a test
approval is requested) ``→ done`` (test approved); a failed run or a denied
approval sends the item to ``rework``. When every item is done the mission
succeeds. ``mission_started`` runs the mission, ``mission_paused`` /
``mission_resumed`` pause and resume it, ``mission_canceled`` cancels it. The
revision goes up by one whenever the state changed.
"""

from __future__ import annotations

from typing import Any

import attrs

from .model import WorkMission, WorkMissionEvent

SUCCESS_STATUSES = frozenset({"ok", "success", "passed", "completed", "succeeded"})
FINAL_STATUSES = frozenset({"succeeded", "failed", "canceled"})

Command = dict[str, Any]


def request_approval(mission: WorkMission, work_item_id: str, kind: str, summary: str) -> Command:
    return {
        "type": "request_approval",
        "mission_id": mission.mission_id,
        "work_item_id": work_item_id,
        "kind": kind,
        "summary": summary,
    }


def emit_notice(mission: WorkMission, event_type: str, properties: dict[str, Any]) -> Command:
    return {
        "type": "emit_notice",
        "mission_id": mission.mission_id,
        "event_type": event_type,
        "properties": properties,
    }


def reduce(mission: WorkMission, event: WorkMissionEvent) -> tuple[WorkMission, list[Command]]:
    """The next state and the commands the event causes (the event's mission_id must match)."""
    if event.mission_id != mission.mission_id:
        return mission, []
    next_state, commands = _apply(mission, event)
    if next_state != mission:
        next_state = attrs.evolve(next_state, revision=mission.revision + 1)
    return next_state, commands


def _apply(mission: WorkMission, event: WorkMissionEvent) -> tuple[WorkMission, list[Command]]:
    kind = event.type
    if kind == "mission_started":
        return (
            mission if mission.status == "running" else attrs.evolve(mission, status="running")
        ), []
    if kind == "mission_paused":
        if mission.status != "running":
            return mission, []
        return attrs.evolve(mission, status="paused"), [
            emit_notice(
                mission,
                "mission.paused",
                {"missionID": mission.mission_id, "reason": event.get("reason")},
            )
        ]
    if kind == "mission_resumed":
        return (
            attrs.evolve(mission, status="running") if mission.status == "paused" else mission
        ), []
    if kind == "mission_canceled":
        if mission.status in FINAL_STATUSES:
            return mission, []
        return attrs.evolve(mission, status="canceled"), [
            emit_notice(
                mission,
                "mission.canceled",
                {"missionID": mission.mission_id, "reason": event.get("reason")},
            )
        ]
    work_item_id = event.get("work_item_id")
    item = mission.item(work_item_id) if work_item_id else None
    if item is None:
        return mission, []
    if kind == "run_started":
        return mission.with_item(
            attrs.evolve(item, status="in_progress", run_id=event.get("run_id"))
        ), []
    if kind == "run_finished":
        if str(event.get("status")).lower() in SUCCESS_STATUSES:
            return mission.with_item(
                attrs.evolve(item, status="review", run_id=event.get("run_id"))
            ), [
                request_approval(
                    mission,
                    item.work_item_id,
                    "review",
                    f"Review required for `{item.title}` output",
                )
            ]
        return mission.with_item(attrs.evolve(item, status="rework")), [
            emit_notice(
                mission,
                "mission.work_item.rework_requested",
                {
                    "workItemID": item.work_item_id,
                    "reason": "run_failed",
                    "runStatus": event.get("status"),
                },
            )
        ]
    if kind == "approval_granted":
        approval_id = event.get("approval_id")
        if item.status == "review":
            return mission.with_item(attrs.evolve(item, status="test")), [
                request_approval(
                    mission,
                    item.work_item_id,
                    "test",
                    f"Tester validation required for `{item.title}` after review {approval_id}",
                )
            ]
        if item.status == "test":
            done = mission.with_item(attrs.evolve(item, status="done"))
            commands = [
                emit_notice(
                    mission,
                    "mission.work_item.completed",
                    {"workItemID": item.work_item_id, "approvalID": approval_id},
                )
            ]
            if all(w.status == "done" for w in done.work_items):
                done = attrs.evolve(done, status="succeeded")
                commands.append(
                    emit_notice(mission, "mission.completed", {"missionID": mission.mission_id})
                )
            return done, commands
        return mission, []
    if kind == "approval_denied" and item.status in ("review", "test"):
        return mission.with_item(attrs.evolve(item, status="rework")), [
            emit_notice(
                mission,
                "mission.work_item.rework_requested",
                {
                    "workItemID": item.work_item_id,
                    "gate": item.status,
                    "reason": event.get("reason"),
                },
            )
        ]
    return mission, []


__all__ = [
    "FINAL_STATUSES",
    "SUCCESS_STATUSES",
    "Command",
    "emit_notice",
    "reduce",
    "request_approval",
]
