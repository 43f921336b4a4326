"""Optimization campaigns: stored records of what is being tuned, their experiments,
and the winner chosen.

This runtime has no optimizer that generates or scores variants by itself. A
campaign is a record a client (or an automation) drives: it is created
``draft``; the actions ``start``, ``pause``, ``resume``, ``complete``, ``cancel``
and ``archive`` move it through its states; ``record_experiment`` stores a
variant with the metrics the client measured; applying an experiment marks it
the winner and completes the campaign. Actions that would need an optimizer
(``generate``, ``run_experiment``, ``evaluate``, ...) answer 200 with
``status: "unsupported"`` and the campaign unchanged. Every record carries
``optimizer: {"state": "unsupported", ...}`` saying so.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import Conflict, NotFound, ValidationFailed
from .repository import OptimizationRepository

if TYPE_CHECKING:
    from ..clock import Clock
    from ..events import EventLog
    from ..store import Store

TOPIC = "optimization"
OPTIMIZER = {
    "state": "unsupported",
    "reason": "this runtime has no built-in optimizer; record experiments and apply a winner",
}
# action -> (states it may start from, the state it leads to)
TRANSITIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "start": (("draft",), "active"),
    "pause": (("active",), "paused"),
    "resume": (("paused",), "active"),
    "complete": (("active", "paused"), "completed"),
    "cancel": (("draft", "active", "paused"), "cancelled"),
    "archive": (("draft", "completed", "cancelled"), "archived"),
}
ALIASES = {"activate": "start", "stop": "cancel", "finish": "complete"}
RECORD = ("record_experiment", "add_experiment", "experiment")
UNSUPPORTED = ("generate", "propose", "run", "run_experiment", "evaluate", "optimize", "step")
EXPERIMENT_STATES = ("draft", "active", "paused")


class OptimizationValidationFailed(ValidationFailed):
    """The optimization request is malformed."""

    code = "OPTIMIZATION_VALIDATION_FAILED"


class OptimizationNotFound(NotFound):
    """No optimization campaign or experiment has this id."""

    code = "OPTIMIZATION_NOT_FOUND"


class OptimizationConflict(Conflict):
    """The campaign's state does not allow this action."""

    code = "OPTIMIZATION_CONFLICT"


def _str(body: Mapping[str, Any], name: str, *, required: bool = False) -> str | None:
    value = body.get(name)
    if value is None or (value == "" and not required):
        if required:
            raise OptimizationValidationFailed(f"`{name}` is required", field=name)
        return None
    if not isinstance(value, str) or not value.strip():
        raise OptimizationValidationFailed(f"`{name}` must be a non-empty string", field=name)
    return value.strip()


def _object(body: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise OptimizationValidationFailed(f"`{name}` must be an object", field=name)
    return value


class OptimizationService:
    def __init__(self, store: Store, events: EventLog, clock: Clock) -> None:
        self._repo = OptimizationRepository(store)
        self._events = events
        self._clock = clock

    async def campaigns(self) -> list[dict[str, Any]]:
        return await self._repo.campaigns()

    async def get(self, campaign_id: str) -> dict[str, Any]:
        found = await self._repo.campaign(campaign_id)
        if found is None:
            raise OptimizationNotFound(
                f"no optimization `{campaign_id}`", optimization_id=campaign_id
            )
        return found

    async def create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        name = _str(body, "name") or _str(body, "title")
        if name is None:
            raise OptimizationValidationFailed("`name` is required", field="name")
        target = body.get("target")
        if target is not None and not isinstance(target, (str, dict)):
            raise OptimizationValidationFailed(
                "`target` must be a string or an object", field="target"
            )
        now = self._clock.now_ms()
        campaign_id = _str(body, "optimization_id") or f"opt_{uuid.uuid4().hex[:16]}"
        known = ("name", "title", "description", "target", "objective", "metric", "optimization_id")
        record: dict[str, Any] = {
            "optimization_id": campaign_id,
            "id": campaign_id,
            "name": name,
            "description": _str(body, "description"),
            "status": "draft",
            "target": target,
            "objective": body.get("objective"),
            "metric": body.get("metric"),
            "config": {k: v for k, v in body.items() if k not in known},
            "experiment_count": 0,
            "winner_experiment_id": None,
            "optimizer": OPTIMIZER,
            "history": [{"action": "create", "status": "draft", "at_ms": now}],
            "created_at_ms": now,
            "updated_at_ms": now,
        }
        if await self._repo.campaign(campaign_id) is not None:
            raise OptimizationConflict(
                f"an optimization `{campaign_id}` exists", optimization_id=campaign_id
            )
        await self._repo.insert_campaign(record)
        self._announce(record, "create")
        return record

    async def action(self, campaign_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        raw = _str(body, "action") or _str(body, "type")
        if raw is None:
            raise OptimizationValidationFailed("`action` is required", field="action")
        action = ALIASES.get(raw, raw)
        if action in UNSUPPORTED:
            campaign = await self.get(campaign_id)
            return {
                "ok": False,
                "action": action,
                "status": "unsupported",
                "reason": f"`{action}` needs an optimizer, which this runtime does not have",
                "optimization": campaign,
            }
        if action in RECORD:
            return await self._record_experiment(campaign_id, body)
        if action not in TRANSITIONS:
            known = ", ".join([*TRANSITIONS, RECORD[0], *UNSUPPORTED])
            raise OptimizationValidationFailed(
                f"unknown action `{raw}`; known: {known}", field="action"
            )
        sources, target = TRANSITIONS[action]
        now = self._clock.now_ms()

        def change(record: dict[str, Any]) -> dict[str, Any]:
            if record["status"] not in sources:
                raise OptimizationConflict(
                    f"cannot {action} an optimization that is {record['status']}",
                    optimization_id=campaign_id,
                    current_status=record["status"],
                )
            history = [
                *record.get("history", []),
                {"action": action, "status": target, "at_ms": now},
            ]
            return {**record, "status": target, "history": history[-50:], "updated_at_ms": now}

        updated = await self._repo.update_campaign(campaign_id, change)
        if updated is None:
            raise OptimizationNotFound(
                f"no optimization `{campaign_id}`", optimization_id=campaign_id
            )
        self._announce(updated, action)
        return {"ok": True, "action": action, "status": updated["status"], "optimization": updated}

    async def _record_experiment(self, campaign_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        spec = _object(body, "experiment") or {k: v for k, v in body.items() if k != "action"}
        metrics = _object(spec, "metrics") or {}
        score = spec.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
            raise OptimizationValidationFailed("`score` must be a number", field="score")
        now = self._clock.now_ms()
        experiment_id = _str(spec, "experiment_id") or f"exp_{uuid.uuid4().hex[:16]}"

        def change(record: dict[str, Any]) -> dict[str, Any]:
            if record["status"] not in EXPERIMENT_STATES:
                raise OptimizationConflict(
                    f"cannot record an experiment on an optimization that is {record['status']}",
                    optimization_id=campaign_id,
                    current_status=record["status"],
                )
            count = record.get("experiment_count", 0) + 1
            return {**record, "experiment_count": count, "updated_at_ms": now}

        if await self._repo.experiment(campaign_id, experiment_id) is not None:
            raise OptimizationConflict(
                f"an experiment `{experiment_id}` exists", experiment_id=experiment_id
            )
        updated = await self._repo.update_campaign(campaign_id, change)
        if updated is None:
            raise OptimizationNotFound(
                f"no optimization `{campaign_id}`", optimization_id=campaign_id
            )
        experiment = {
            "experiment_id": experiment_id,
            "id": experiment_id,
            "optimization_id": campaign_id,
            "name": _str(spec, "name") or experiment_id,
            "variant": spec.get("variant"),
            "metrics": metrics,
            "score": score,
            "status": "recorded",
            "winner": False,
            "created_at_ms": now,
            "updated_at_ms": now,
        }
        await self._repo.put_experiment(experiment)
        self._announce(updated, "record_experiment")
        return {
            "ok": True,
            "action": "record_experiment",
            "status": updated["status"],
            "optimization": updated,
            "experiment": experiment,
        }

    async def experiments(self, campaign_id: str) -> list[dict[str, Any]]:
        await self.get(campaign_id)
        return await self._repo.experiments(campaign_id)

    async def experiment(self, campaign_id: str, experiment_id: str) -> dict[str, Any]:
        found = await self._repo.experiment(campaign_id, experiment_id)
        if found is None:
            await self.get(campaign_id)
            raise OptimizationNotFound(
                f"no experiment `{experiment_id}` in `{campaign_id}`", experiment_id=experiment_id
            )
        return found

    async def apply_winner(self, campaign_id: str, experiment_id: str) -> dict[str, Any]:
        await self.experiment(campaign_id, experiment_id)
        now = self._clock.now_ms()

        def change(record: dict[str, Any]) -> dict[str, Any]:
            if record["status"] in ("cancelled", "archived"):
                raise OptimizationConflict(
                    f"cannot apply a winner to an optimization that is {record['status']}",
                    optimization_id=campaign_id,
                    current_status=record["status"],
                )
            entry = {"action": "apply_winner", "status": "completed", "at_ms": now}
            return {
                **record,
                "status": "completed",
                "winner_experiment_id": experiment_id,
                "history": [*record.get("history", []), entry][-50:],
                "updated_at_ms": now,
            }

        applied = await self._repo.apply_winner(campaign_id, experiment_id, change, now_ms=now)
        if applied is None:
            raise OptimizationNotFound(
                f"no experiment `{experiment_id}` in `{campaign_id}`", experiment_id=experiment_id
            )
        campaign, winner = applied
        self._announce(campaign, "apply_winner")
        return {
            "ok": True,
            "applied": True,
            "optimization": campaign,
            "experiment": winner,
            "note": "the winner is recorded; applying its variant to the target is up to the "
            "client (this runtime has no optimizer)",
        }

    def _announce(self, record: dict[str, Any], action: str) -> None:
        self._events.publish(
            "optimization.updated",
            {
                "optimization_id": record["optimization_id"],
                "action": action,
                "status": record["status"],
            },
            topic=TOPIC,
        )


__all__ = [
    "OptimizationConflict",
    "OptimizationNotFound",
    "OptimizationService",
    "OptimizationValidationFailed",
]
