"""Work missions: create, read, and apply events (with the orchestrator bridge to agent teams).

``apply_event`` runs the reducer, stores the new state, publishes
``mission.updated`` (and each ``emit_notice`` command as its own event) on
topic ``missions``, and answers with the mission, the commands, and always both
bridge keys: for ``mission_started`` the agent-teams service spawns one
instance per work item with an ``assigned_agent`` (``orchestratorSpawns``); for
``mission_canceled`` it cancels the mission's instances
(``orchestratorCancellations``). Without agent teams in the engine the keys
are ``[]`` and ``{"triggered": false, "cancelledInstances": 0}``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from actors import SerialByKey

from ...errors import Conflict, SvcError, ValidationFailed
from ..errors import WorkMissionNotFound
from .repository import WorkMissionRepository

if TYPE_CHECKING:
    from ...engine import Engine
    from .model import WorkMission

# The mission model and its reducer are imported on first use: start-up never creates or
# updates a mission (docs/architecture.md, "Start-up budget").

TOPIC = "missions"


class WorkMissionService:
    def __init__(self, engine: Engine, repo: WorkMissionRepository) -> None:
        self.engine = engine
        self.repo = repo
        self._serial = SerialByKey()
        """One reducer step at a time per mission (read, reduce, save)."""

    async def create(self, body: Any) -> WorkMission:
        from .model import WorkMission, parse_work_items

        if not isinstance(body, Mapping):
            raise ValidationFailed("request body must be a JSON object", field="$")
        title = body.get("title")
        goal = body.get("goal")
        if not isinstance(title, str) or not title.strip():
            raise ValidationFailed("`title` must be a non-empty string", field="title")
        if not isinstance(goal, str) or not goal.strip():
            raise ValidationFailed("`goal` must be a non-empty string", field="goal")
        mission_id = body.get("mission_id") or str(uuid.uuid4())
        if not isinstance(mission_id, str) or not mission_id.strip() or "/" in mission_id:
            raise ValidationFailed(
                "`mission_id` must be a non-empty string without `/`", field="mission_id"
            )
        if await self.repo.get(mission_id) is not None:
            raise Conflict(
                f"mission `{mission_id}` already exists",
                code="MISSION_EXISTS",
                missionID=mission_id,
            )
        criteria = body.get("success_criteria") or []
        if not isinstance(criteria, list) or not all(isinstance(c, str) for c in criteria):
            raise ValidationFailed(
                "`success_criteria` must be an array of strings", field="success_criteria"
            )
        entrypoint = body.get("entrypoint")
        if entrypoint is not None and not isinstance(entrypoint, str):
            raise ValidationFailed("`entrypoint` must be a string", field="entrypoint")
        spec: dict[str, Any] = {
            "mission_id": mission_id,
            "title": title.strip(),
            "goal": goal.strip(),
            "success_criteria": criteria,
            "entrypoint": entrypoint,
            "budgets": dict(body.get("budgets") or {}),
            "capabilities": {
                "allowed_tools": [],
                "allowed_agents": [],
                "allowed_memory_tiers": [],
                **dict(body.get("capabilities") or {}),
            },
        }
        if isinstance(body.get("metadata"), Mapping):
            spec["metadata"] = dict(body["metadata"])
        now = self.engine.clock.now_ms()
        mission = WorkMission(
            mission_id=mission_id,
            status="draft",
            spec=spec,
            work_items=parse_work_items(body.get("work_items")),
            revision=1,
            created_at_ms=now,
            updated_at_ms=now,
        )
        await self.repo.save(mission)
        self.engine.events.publish(
            "mission.created",
            {
                "missionID": mission_id,
                "title": spec["title"],
                "workItemCount": len(mission.work_items),
            },
            topic=TOPIC,
        )
        return mission

    async def get(self, mission_id: str) -> WorkMission:
        mission = await self.repo.get(mission_id)
        if mission is None:
            raise WorkMissionNotFound(f"mission `{mission_id}` not found", missionID=mission_id)
        return mission

    async def recent(self) -> list[WorkMission]:
        """The newest missions first."""
        return await self.repo.recent()

    async def apply_event(self, mission_id: str, body: Any) -> dict[str, Any]:
        from .model import parse_event
        from .reducer import reduce

        raw = body.get("event") if isinstance(body, Mapping) else None
        event = parse_event(raw)
        if event.mission_id != mission_id:
            raise SvcError(
                f"event mission_id `{event.mission_id}` does not match the path `{mission_id}`",
                code="MISSION_EVENT_MISMATCH",
                status=400,
                field="event.mission_id",
            )
        async with self._serial.turn(mission_id):
            mission = await self.get(mission_id)
            updated, commands = reduce(mission, event)
            if updated != mission:
                updated = attrs.evolve(updated, updated_at_ms=self.engine.clock.now_ms())
                await self.repo.save(updated)
        self.engine.events.publish(
            "mission.updated",
            {
                "missionID": mission_id,
                "revision": updated.revision,
                "status": updated.status,
                "commandCount": len(commands),
                "eventType": event.type,
            },
            topic=TOPIC,
        )
        for command in commands:
            if command["type"] == "emit_notice":
                self.engine.events.publish(
                    command["event_type"],
                    {"missionID": mission_id, **command["properties"]},
                    topic=TOPIC,
                )
        return {
            "mission": updated.to_wire(),
            "commands": commands,
            "orchestratorSpawns": await self._spawns(updated, event.type),
            "orchestratorCancellations": await self._cancellations(
                updated, event.type, event.get("reason")
            ),
        }

    async def _spawns(self, mission: WorkMission, kind: str) -> list[dict[str, Any]]:
        teams = self.engine.teams
        if kind != "mission_started" or teams is None:
            return []
        items = [w.to_wire() for w in mission.work_items if w.assigned_agent]
        return list(await teams.spawn_for_work_items(mission.mission_id, items))

    async def _cancellations(
        self, mission: WorkMission, kind: str, reason: str | None
    ) -> dict[str, Any]:
        teams = self.engine.teams
        if kind != "mission_canceled" or teams is None:
            return {"triggered": False, "cancelledInstances": 0}
        why = reason or "mission canceled"
        cancelled = await teams.cancel_mission(mission.mission_id, why)
        return {"triggered": True, "reason": why, "cancelledInstances": int(cancelled)}


__all__ = ["TOPIC", "WorkMissionService"]
