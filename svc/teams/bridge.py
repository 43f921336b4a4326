"""The mission bridge: a started mission spawns one instance per assigned work item.

Each work item with an ``assigned_agent`` names a role (case-insensitively); it
is spawned through the ordinary gate with source ``orchestrator_runtime``, as
a child of the mission's orchestrator (so the ``orchestrator`` spawn edge
applies), with the justification ``mission work item <id>``. Every such item
gets a row of ``orchestratorSpawns``; an agent that names no role gets
``UNSUPPORTED_ASSIGNED_AGENT``. The instances wait to be prompted: the
mission's runtime (or a person) gives them their work.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .records import SpawnRequest
from .schema import ROLES, parse_role

if TYPE_CHECKING:
    from .service import SpawnResult

Spawner = Callable[[SpawnRequest], Awaitable["SpawnResult"]]


async def work_item_spawns(
    spawn: Spawner, mission_id: str, work_items: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for item in work_items:
        agent = item.get("assigned_agent", item.get("assignedAgent"))
        if agent is None or (isinstance(agent, str) and not agent.strip()):
            continue
        item_id = str(item.get("work_item_id") or item.get("workItemID") or item.get("id") or "")
        role = parse_role(agent)
        if role is None:
            rows.append(
                {
                    "workItemID": item_id,
                    "agent": agent,
                    "ok": False,
                    "code": "UNSUPPORTED_ASSIGNED_AGENT",
                    "error": f"assigned agent `{agent}` is not a role ({', '.join(ROLES)})",
                }
            )
            continue
        result = await spawn(
            SpawnRequest(
                role=role,
                source="orchestrator_runtime",
                mission_id=mission_id,
                parent_role="orchestrator",
                justification=f"mission work item {item_id}",
            )
        )
        body = result.body
        if result.ok:
            rows.append(
                {
                    "workItemID": item_id,
                    "agent": agent,
                    "ok": True,
                    "instanceID": body["instanceID"],
                    "sessionID": body["sessionID"],
                    "status": body["status"],
                }
            )
            continue
        row = {
            "workItemID": item_id,
            "agent": agent,
            "ok": False,
            "code": body["code"],
            "error": body["error"],
        }
        if body.get("approvalID"):
            row["approvalID"] = body["approvalID"]
            row["requiresUserApproval"] = True
        rows.append(row)
    return rows


__all__ = ["work_item_spawns"]
