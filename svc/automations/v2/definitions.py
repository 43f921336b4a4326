"""Automation v2 definitions: create (governed), list, patch, delete."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ...errors import Conflict, ValidationFailed
from ..principal import HUMAN, Principal
from .state import TOPIC, V2State

if TYPE_CHECKING:
    from .records import AutomationV2

# The spec parser, the records, the schedule math and the executor are imported on first
# use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").


class V2Definitions(V2State):
    def all_automations(self, *, status: str | None = None) -> list[AutomationV2]:
        found = sorted(self._automations.values(), key=lambda a: (a.created_at_ms, a.automation_id))
        return [a for a in found if status is None or a.status == status]

    async def create(
        self, body: Mapping[str, Any], *, principal: Principal = HUMAN
    ) -> AutomationV2:
        from ..scheduler.timing import first_fire_at
        from .records import AutomationV2
        from .spec import parse_definition

        definition = parse_definition(body, workspace=self.engine.workspace)
        await self.governance.authorize_create(principal, definition.spec)
        automation_id = definition.automation_id or f"automation-v2-{uuid.uuid4()}"
        if automation_id in self._automations:
            raise Conflict(
                f"automation `{automation_id}` already exists",
                code="AUTOMATION_V2_EXISTS",
                automationID=automation_id,
            )
        now = self.now_ms()
        creator_id = principal.agent_id if principal.is_agent else (definition.creator_id or "user")
        automation = AutomationV2(
            automation_id=automation_id,
            name=definition.spec["name"],
            status=definition.status,
            spec=definition.spec,
            created_at_ms=now,
            updated_at_ms=now,
            creator_kind=principal.kind,
            creator_id=creator_id,
            provenance=principal.provenance(),
            next_fire_at_ms=first_fire_at(definition.schedule, now)
            if definition.status == "active"
            else None,
        )
        if principal.is_agent:
            await self.repo.save_agent_created(automation)
        else:
            await self.repo.save(automation)
        self._automations[automation_id] = automation
        self.signal.changed("v2", automation_id)
        self.engine.events.publish(
            "automation.v2.created",
            {
                "automationID": automation_id,
                "name": automation.name,
                "status": automation.status,
                "creatorType": principal.kind,
                "creatorID": creator_id,
            },
            topic=TOPIC,
        )
        return automation

    async def patch(
        self, automation_id: str, body: Mapping[str, Any], *, principal: Principal = HUMAN
    ) -> AutomationV2:
        from ..scheduler.timing import first_fire_at
        from .spec import CODE, canonical_spec, schedule_of

        current = self.require(automation_id)
        if not isinstance(body, Mapping):
            raise ValidationFailed("request body must be a JSON object", field="$", code=CODE)
        merged: dict[str, Any] = dict(current.spec)
        for key, value in body.items():
            if key in (
                "automation_id",
                "created_at_ms",
                "updated_at_ms",
                "creator_id",
                "creator_type",
                "definition_hash",
                "next_fire_at_ms",
                "last_fired_at_ms",
            ):
                continue
            if key == "status":
                continue
            if key == "capabilities":
                metadata = dict(merged.get("metadata") or {})
                metadata["capabilities"] = {
                    **(metadata.get("capabilities") or {}),
                    **{k: bool(v) for k, v in (value or {}).items()},
                }
                merged["metadata"] = metadata
                continue
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        spec = canonical_spec(merged, workspace=self.engine.workspace)
        status = body.get("status", current.status)
        if status not in ("active", "paused", "draft", "retired"):
            raise ValidationFailed(
                "`status` must be one of active, paused, draft, retired", field="status", code=CODE
            )
        await self.governance.authorize_mutation(principal, current, new_spec=spec)
        now = self.now_ms()
        schedule, _ = schedule_of(spec)
        next_fire = current.next_fire_at_ms
        if status != "active":
            next_fire = None
        elif (
            current.status != "active"
            or spec.get("schedule") != current.spec.get("schedule")
            or next_fire is None
        ):
            next_fire = first_fire_at(schedule, now)
        updated = attrs.evolve(
            current,
            name=spec["name"],
            status=status,
            spec=spec,
            updated_at_ms=now,
            next_fire_at_ms=next_fire,
        )
        await self.repo.save(updated)
        self._automations[automation_id] = updated
        self.signal.changed("v2", automation_id)
        self.engine.events.publish(
            "automation.v2.updated",
            {"automationID": automation_id, "status": status, "nextFireAtMs": next_fire},
            topic=TOPIC,
        )
        return updated

    async def delete(self, automation_id: str, *, principal: Principal = HUMAN) -> AutomationV2:
        current = self.require(automation_id)
        await self.governance.authorize_mutation(principal, current, delete=True)
        await self.repo.delete(automation_id)
        self._automations.pop(automation_id, None)
        self.signal.changed("v2", automation_id)
        self.engine.events.publish(
            "automation.v2.deleted", {"automationID": automation_id}, topic=TOPIC
        )
        return current


__all__ = ["V2Definitions"]
