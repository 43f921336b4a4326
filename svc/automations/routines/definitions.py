"""Routine definitions: create, patch, delete, list, and their wire shapes."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import Conflict
from ..principal import HUMAN, Principal, require_human
from .state import TOPIC, RoutineState

if TYPE_CHECKING:
    from .bodies import RoutineFields
    from .records import Routine


# The body parsers, the records, the schedule math and the run execution are imported on
# first use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class RoutineDefinitions(RoutineState):
    def all_routines(self) -> list[Routine]:
        return sorted(self._routines.values(), key=lambda r: (r.created_at_ms, r.routine_id))

    def routine_wire(self, routine: Routine) -> dict[str, Any]:
        return routine.routine_wire(*self.fire_times(routine.routine_id))

    def automation_wire(self, routine: Routine) -> dict[str, Any]:
        return routine.automation_wire(*self.fire_times(routine.routine_id))

    async def create(
        self, body: Any, *, principal: Principal = HUMAN, dialect: str = "routine"
    ) -> Routine:
        from ..scheduler.timing import first_fire_at
        from .bodies import AUTOMATION_CODE, ROUTINE_CODE, parse_body

        require_human(principal, "creation")
        code = AUTOMATION_CODE if dialect == "automation" else ROUTINE_CODE
        fields = parse_body(body, workspace=self.engine.workspace, code=code)
        routine_id = fields.routine_id or str(uuid.uuid4())
        if routine_id in self._routines:
            raise Conflict(
                f"routine `{routine_id}` already exists",
                code="ROUTINE_EXISTS",
                routineID=routine_id,
            )
        now = self.now_ms()
        routine = self._routine(
            fields,
            routine_id,
            created_at_ms=now,
            now=now,
            creator_id=fields.creator_id or (principal.agent_id or "unknown"),
        )
        next_fire = fields.next_fire_at_ms
        if next_fire is None and routine.status == "active":
            next_fire = first_fire_at(routine.schedule, now)
        await self.repo.save(routine, next_fire, None)
        self._routines[routine_id] = routine
        self._set_fire(routine_id, next_fire, None)
        self.signal.changed("routine", routine_id)
        self.engine.events.publish(
            "routine.created",
            {
                "routineID": routine_id,
                "automationID": routine_id,
                "name": routine.name,
                "entrypoint": routine.entrypoint,
            },
            topic=TOPIC,
        )
        return routine

    def _routine(
        self,
        fields: RoutineFields,
        routine_id: str,
        *,
        created_at_ms: int,
        now: int,
        creator_id: str,
    ) -> Routine:
        from .records import Routine

        return Routine(
            routine_id=routine_id,
            name=fields.name,
            status=fields.status,
            schedule=fields.schedule,
            misfire=fields.misfire,
            entrypoint=fields.entrypoint,
            args=fields.args,
            allowed_tools=fields.allowed_tools,
            output_targets=fields.output_targets,
            requires_approval=fields.requires_approval,
            external_integrations_allowed=fields.external_integrations_allowed,
            created_at_ms=created_at_ms,
            updated_at_ms=now,
            creator_type="user",
            creator_id=creator_id,
        )

    async def patch(self, routine_id: str, patch: Any, *, dialect: str = "routine") -> Routine:
        from ..scheduler.timing import first_fire_at
        from .bodies import (
            AUTOMATION_CODE,
            ROUTINE_CODE,
            parse_mission_body,
            parse_routine_body,
            patched_mission_body,
            patched_routine_body,
        )

        current = self.require(routine_id, dialect=dialect)
        if dialect == "automation":
            code = AUTOMATION_CODE
            fields = parse_mission_body(
                patched_mission_body(current, patch, code=code),
                workspace=self.engine.workspace,
                code=code,
            )
        else:
            code = ROUTINE_CODE
            fields = parse_routine_body(
                patched_routine_body(current, patch, code=code),
                workspace=self.engine.workspace,
                code=code,
            )
        now = self.now_ms()
        updated = self._routine(
            fields,
            routine_id,
            created_at_ms=current.created_at_ms,
            now=now,
            creator_id=current.creator_id,
        )
        next_fire, last_fired = self.fire_times(routine_id)
        if isinstance(patch, Mapping) and patch.get("next_fire_at_ms") is not None:
            next_fire = fields.next_fire_at_ms
        elif updated.status != "active":
            next_fire = None
        elif (
            current.status != "active" or next_fire is None or updated.schedule != current.schedule
        ):
            next_fire = first_fire_at(updated.schedule, now)
        await self.repo.save(updated, next_fire, last_fired)
        self._routines[routine_id] = updated
        self._set_fire(routine_id, next_fire, last_fired)
        self.signal.changed("routine", routine_id)
        self.engine.events.publish(
            "routine.updated",
            {
                "routineID": routine_id,
                "automationID": routine_id,
                "status": updated.status,
                "nextFireAtMs": next_fire,
            },
            topic=TOPIC,
        )
        return updated

    async def delete(self, routine_id: str, *, dialect: str = "routine") -> Routine:
        current = self.require(routine_id, dialect=dialect)
        await self.repo.delete(routine_id)
        self._routines.pop(routine_id, None)
        self._next_fire.pop(routine_id, None)
        self._last_fired.pop(routine_id, None)
        self.signal.changed("routine", routine_id)
        self.engine.events.publish(
            "routine.deleted", {"routineID": routine_id, "automationID": routine_id}, topic=TOPIC
        )
        return current


__all__ = ["RoutineDefinitions"]
