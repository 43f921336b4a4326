"""Work missions (automations): ``POST /mission``, ``GET /mission``, ``GET /mission/{id}``, ``POST
/mission/{id}/event``.

The event route runs the mission reducer and answers with the mission, the
commands it emitted, and always both orchestrator-bridge keys
(``orchestratorSpawns``, ``orchestratorCancellations``).
"""

from __future__ import annotations

from typing import Any

from quart import Blueprint

from ..request import engine, object_body

bp = Blueprint("missions", __name__)


@bp.post("/mission")
async def create_mission() -> Any:
    mission = await engine().automations.work_missions.create(await object_body())
    return {"mission": mission.to_wire()}


@bp.get("/mission")
async def list_missions() -> Any:
    missions = await engine().automations.work_missions.recent()
    return {"missions": [m.to_wire() for m in missions], "count": len(missions)}


@bp.get("/mission/<mission_id>")
async def get_mission(mission_id: str) -> Any:
    return {"mission": (await engine().automations.work_missions.get(mission_id)).to_wire()}


@bp.post("/mission/<mission_id>/event")
async def mission_event(mission_id: str) -> Any:
    body = await object_body()
    event = body.get("event")
    if isinstance(event, dict) and "mission_id" not in event and "missionID" not in event:
        # The mission is the one in the path unless the event names one.
        body = {**body, "event": {**event, "mission_id": mission_id}}
    return await engine().automations.work_missions.apply_event(mission_id, body)
