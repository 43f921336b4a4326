"""The mission model: a mission, its work items, the events it accepts and the commands it emits.

Wire shapes are snake_case; events are tagged by ``type``::

    {"type": "run_finished", "mission_id": "m-1", "work_item_id": "w-1", "run_id": "r-9", "status":
    "ok"}

Commands are tagged the same way (``request_approval``, ``emit_notice``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ...errors import ValidationFailed

MISSION_STATUSES = ("draft", "running", "paused", "succeeded", "failed", "canceled")
WORK_ITEM_STATUSES = ("todo", "in_progress", "blocked", "review", "test", "rework", "done")

# Each event type and the fields it requires besides ``mission_id``.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "mission_started": (),
    "mission_paused": ("reason",),
    "mission_resumed": (),
    "mission_canceled": ("reason",),
    "run_started": ("work_item_id", "run_id"),
    "run_finished": ("work_item_id", "run_id", "status"),
    "tool_observed": ("run_id", "tool", "phase"),
    "approval_granted": ("work_item_id", "approval_id"),
    "approval_denied": ("work_item_id", "approval_id", "reason"),
    "timer_fired": ("timer_id",),
    "resource_changed": ("key", "rev"),
}
# Fields that may be omitted and get a default (a reason is not always given).
EVENT_DEFAULTS: dict[str, Any] = {"reason": ""}


@attrs.frozen
class WorkItem:
    work_item_id: str
    title: str
    status: str = "todo"
    detail: str | None = None
    depends_on: tuple[str, ...] = ()
    assigned_agent: str | None = None
    run_id: str | None = None
    artifact_refs: tuple[str, ...] = ()
    metadata: Mapping[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "work_item_id": self.work_item_id,
            "title": self.title,
            "status": self.status,
            "depends_on": list(self.depends_on),
            "artifact_refs": list(self.artifact_refs),
        }
        for key in ("detail", "assigned_agent", "run_id"):
            if getattr(self, key) is not None:
                wire[key] = getattr(self, key)
        if self.metadata is not None:
            wire["metadata"] = dict(self.metadata)
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> WorkItem:
        return cls(
            work_item_id=data["work_item_id"],
            title=data["title"],
            status=data.get("status", "todo"),
            detail=data.get("detail"),
            depends_on=tuple(data.get("depends_on") or ()),
            assigned_agent=data.get("assigned_agent"),
            run_id=data.get("run_id"),
            artifact_refs=tuple(data.get("artifact_refs") or ()),
            metadata=data.get("metadata"),
        )


@attrs.frozen
class WorkMission:
    mission_id: str
    status: str
    spec: Mapping[str, Any]
    """``{mission_id, title, goal, success_criteria, entrypoint, budgets, capabilities,
    metadata?}``."""
    work_items: tuple[WorkItem, ...]
    revision: int
    created_at_ms: int
    updated_at_ms: int

    def item(self, work_item_id: str) -> WorkItem | None:
        return next((w for w in self.work_items if w.work_item_id == work_item_id), None)

    def with_item(self, item: WorkItem) -> WorkMission:
        return attrs.evolve(
            self,
            work_items=tuple(
                item if w.work_item_id == item.work_item_id else w for w in self.work_items
            ),
        )

    def to_wire(self) -> dict[str, Any]:
        return {
            "mission_id": self.mission_id,
            # Clients read `id`, `title` and `goal` at the top of the record.
            "id": self.mission_id,
            "title": self.spec.get("title"),
            "goal": self.spec.get("goal"),
            "status": self.status,
            "spec": dict(self.spec),
            "work_items": [w.to_wire() for w in self.work_items],
            "revision": self.revision,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> WorkMission:
        return cls(
            mission_id=data["mission_id"],
            status=data["status"],
            spec=data["spec"],
            work_items=tuple(WorkItem.from_wire(w) for w in data.get("work_items") or ()),
            revision=int(data["revision"]),
            created_at_ms=int(data.get("created_at_ms") or 0),
            updated_at_ms=int(data["updated_at_ms"]),
        )


@attrs.frozen
class WorkMissionEvent:
    type: str
    mission_id: str
    fields: Mapping[str, Any] = attrs.field(factory=dict)

    def get(self, key: str) -> Any:
        return self.fields.get(key)


def parse_event(data: Any, *, field: str = "event") -> WorkMissionEvent:
    """A mission event from its wire form; 400 naming the missing or wrong field."""
    if not isinstance(data, Mapping):
        raise ValidationFailed(f"`{field}` must be an object with a `type`", field=field)
    kind = data.get("type")
    # A list or an object is unhashable: check the type before the lookup.
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise ValidationFailed(
            f"`{field}.type` must be one of {', '.join(EVENT_FIELDS)}", field=f"{field}.type"
        )
    mission_id = data.get("mission_id", data.get("missionID"))
    if not isinstance(mission_id, str) or not mission_id.strip():
        raise ValidationFailed(
            f"`{field}.mission_id` must be a non-empty string", field=f"{field}.mission_id"
        )
    fields: dict[str, Any] = {}
    for name in EVENT_FIELDS[kind]:
        value = data.get(name, EVENT_DEFAULTS.get(name))
        if name == "rev":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValidationFailed(
                    f"`{field}.rev` must be a non-negative integer", field=f"{field}.rev"
                )
        elif not isinstance(value, str) or (not value.strip() and name not in EVENT_DEFAULTS):
            raise ValidationFailed(
                f"`{field}.{name}` must be a non-empty string", field=f"{field}.{name}"
            )
        fields[name] = value
    return WorkMissionEvent(kind, mission_id.strip(), fields)


def parse_work_items(value: Any, *, field: str = "work_items") -> tuple[WorkItem, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValidationFailed(f"`{field}` must be an array", field=field)
    items: list[WorkItem] = []
    seen: set[str] = set()
    for index, raw in enumerate(value):
        where = f"{field}[{index}]"
        if not isinstance(raw, Mapping):
            raise ValidationFailed(f"`{where}` must be an object", field=where)
        title = raw.get("title")
        if not isinstance(title, str) or not title.strip():
            raise ValidationFailed(
                f"`{where}.title` must be a non-empty string", field=f"{where}.title"
            )
        item_id = raw.get("work_item_id") or f"w-{index + 1}"
        if not isinstance(item_id, str) or item_id in seen:
            raise ValidationFailed(
                f"`{where}.work_item_id` must be a unique string", field=f"{where}.work_item_id"
            )
        seen.add(item_id)
        for key in ("detail", "assigned_agent"):
            if raw.get(key) is not None and not isinstance(raw[key], str):
                raise ValidationFailed(f"`{where}.{key}` must be a string", field=f"{where}.{key}")
        depends = raw.get("depends_on") or []
        if not isinstance(depends, list) or not all(isinstance(d, str) for d in depends):
            raise ValidationFailed(
                f"`{where}.depends_on` must be an array of strings", field=f"{where}.depends_on"
            )
        metadata = raw.get("metadata")
        if metadata is not None and not isinstance(metadata, Mapping):
            raise ValidationFailed(
                f"`{where}.metadata` must be an object", field=f"{where}.metadata"
            )
        items.append(
            WorkItem(
                work_item_id=item_id,
                title=title.strip(),
                detail=raw.get("detail"),
                depends_on=tuple(depends),
                assigned_agent=raw.get("assigned_agent"),
                metadata=dict(metadata) if metadata is not None else None,
            )
        )
    return tuple(items)


__all__ = [
    "EVENT_FIELDS",
    "MISSION_STATUSES",
    "WORK_ITEM_STATUSES",
    "WorkItem",
    "WorkMission",
    "WorkMissionEvent",
    "parse_event",
    "parse_work_items",
]
