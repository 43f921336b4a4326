"""Mission rollups (``GET /agent-team/missions``): counts by status and usage totals per mission.

Totals are the sums of the instances' own usage (``budgetUsage``); queued spawn
approvals count as ``queuedCount``. Each rollup also carries the mission's
budget limits, the limit that exhausted it and when it was last cancelled.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from .records import MissionState, usage_from_wire


def _empty(mission_id: str) -> dict[str, Any]:
    return {
        "missionID": mission_id,
        "instanceCount": 0,
        "runningCount": 0,
        "completedCount": 0,
        "failedCount": 0,
        "cancelledCount": 0,
        "queuedCount": 0,
        "tokenUsedTotal": 0,
        "toolCallsUsedTotal": 0,
        "stepsUsedTotal": 0,
        "costUsedUsdTotal": 0.0,
    }


def mission_rollups(
    instances: Iterable[tuple[str, str, Any]], queued: Iterable[str], states: Iterable[MissionState]
) -> list[dict[str, Any]]:
    """Rollups from (mission, status, usage JSON) per instance, the mission of each queued spawn
    and the missions' counters; sorted by mission id."""
    rollups: dict[str, dict[str, Any]] = {}
    for mission_id, status, usage in instances:
        entry = rollups.setdefault(mission_id, _empty(mission_id))
        entry["instanceCount"] += 1
        entry[f"{status}Count"] += 1
        used = usage_from_wire(usage)
        entry["tokenUsedTotal"] += used.tokens
        entry["toolCallsUsedTotal"] += used.tool_calls
        entry["stepsUsedTotal"] += used.steps
        entry["costUsedUsdTotal"] += used.cost_usd
    for mission_id in queued:
        rollups.setdefault(mission_id, _empty(mission_id))["queuedCount"] += 1
    for state in states:
        found = rollups.get(state.id)
        if found is None:
            continue
        entry = found
        entry["budget"] = {k: v for k, v in attrs.asdict(state.limits).items() if v is not None}
        entry["exhaustedBy"] = f"mission_{state.exhausted_by}" if state.exhausted_by else None
        entry["cancelledAtMs"] = state.cancelled_at_ms
    for entry in rollups.values():
        entry["costUsedUsdTotal"] = round(entry["costUsedUsdTotal"], 8)
    return [rollups[m] for m in sorted(rollups)]


__all__ = ["mission_rollups"]
