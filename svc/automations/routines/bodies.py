"""Request bodies for routines: the routine shape, the mission shape, and patches.

Both ``/routines`` and ``/automations`` accept both shapes: a body with a
``mission`` object is mission-shaped (``automation_id``, ``mission``,
``policy``, ``model_policy``), anything else is routine-shaped (SPEC 2.2).
Each parses into the same :class:`RoutineFields`; errors are 400s naming the
field (code ``ROUTINE_INVALID`` on ``/routines``, ``AUTOMATION_INVALID`` on
``/automations``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ...errors import ValidationFailed
from ...tools import normalize_patterns
from ..routing import parse_model_policy
from ..scheduler.schedule import MisfirePolicy, Schedule, parse_routine_schedule
from ..targets import parse_output_targets
from .compat import DEFINITION_STATUS_ALIASES
from .records import DEFAULT_ENTRYPOINT, ROUTINE_STATUSES, Routine

ROUTINE_CODE = "ROUTINE_INVALID"
AUTOMATION_CODE = "AUTOMATION_INVALID"
MODES = ("standalone", "orchestrated")


@attrs.frozen
class RoutineFields:
    routine_id: str | None
    name: str
    status: str
    schedule: Schedule
    misfire: MisfirePolicy
    entrypoint: str
    args: dict[str, Any]
    allowed_tools: tuple[str, ...]
    output_targets: tuple[str, ...]
    requires_approval: bool
    external_integrations_allowed: bool
    creator_id: str | None = None
    next_fire_at_ms: int | None = None


def is_mission_shaped(body: Mapping[str, Any]) -> bool:
    return isinstance(body.get("mission"), Mapping)


def parse_body(body: Any, *, workspace: Path, code: str) -> RoutineFields:
    if not isinstance(body, Mapping):
        raise ValidationFailed("request body must be a JSON object", field="$", code=code)
    if is_mission_shaped(body):
        return parse_mission_body(body, workspace=workspace, code=code)
    return parse_routine_body(body, workspace=workspace, code=code)


# ---------------------------------------------------------------------- routine shape
def parse_routine_body(
    body: Mapping[str, Any], *, workspace: Path, code: str = ROUTINE_CODE
) -> RoutineFields:
    # A routine-shaped body sent to /automations may name itself `automation_id`.
    routine_id = _opt_id(body, "routine_id", code) or _opt_id(body, "automation_id", code)
    name = _name(body.get("name"), routine_id, code)
    schedule, misfire = parse_routine_schedule(
        body.get("schedule"), body.get("timezone"), body.get("misfire_policy"), code=code
    )
    args = _args(body.get("args"), code)
    for key in ("mode", "orchestrator_only_tool_calls"):
        if body.get(key) is not None:
            args[key] = body[key]
    _check_args(args, code, prefix="args")
    entrypoint = body.get("entrypoint")
    if entrypoint is None:
        entrypoint = DEFAULT_ENTRYPOINT
    if not isinstance(entrypoint, str) or not entrypoint.strip():
        raise ValidationFailed(
            "`entrypoint` must be a non-empty string", field="entrypoint", code=code
        )
    return RoutineFields(
        routine_id=routine_id,
        name=name,
        status=_status(body.get("status"), code),
        schedule=schedule,
        misfire=misfire,
        entrypoint=entrypoint.strip(),
        args=args,
        allowed_tools=_tools(body.get("allowed_tools"), "allowed_tools", code),
        output_targets=parse_output_targets(
            body.get("output_targets"), workspace=workspace, field="output_targets", code=code
        ),
        requires_approval=_bool(body.get("requires_approval"), "requires_approval", False, code),
        external_integrations_allowed=_bool(
            body.get("external_integrations_allowed"), "external_integrations_allowed", False, code
        ),
        creator_id=_opt_str(body, "creator_id", code),
        next_fire_at_ms=_opt_ms(body, "next_fire_at_ms", code),
    )


# ---------------------------------------------------------------------- mission shape
def parse_mission_body(
    body: Mapping[str, Any], *, workspace: Path, code: str = AUTOMATION_CODE
) -> RoutineFields:
    routine_id = _opt_id(body, "automation_id", code) or _opt_id(body, "routine_id", code)
    name = _name(body.get("name"), routine_id, code)
    schedule, misfire = parse_routine_schedule(
        body.get("schedule"), body.get("timezone"), body.get("misfire_policy"), code=code
    )
    mission = body.get("mission")
    if not isinstance(mission, Mapping):
        raise ValidationFailed(
            "`mission` must be an object with an objective", field="mission", code=code
        )
    objective = mission.get("objective")
    if not isinstance(objective, str) or not objective.strip():
        raise ValidationFailed(
            "`mission.objective` must be a non-empty string", field="mission.objective", code=code
        )
    mode = body.get("mode", "standalone")
    policy = body.get("policy") or {}
    if not isinstance(policy, Mapping):
        raise ValidationFailed("`policy` must be an object", field="policy", code=code)
    tool = policy.get("tool") or {}
    approval = policy.get("approval") or {}
    if not isinstance(tool, Mapping) or not isinstance(approval, Mapping):
        raise ValidationFailed(
            "`policy.tool` and `policy.approval` must be objects", field="policy", code=code
        )
    args: dict[str, Any] = {"prompt": objective.strip(), "mode": mode}
    criteria = mission.get("success_criteria")
    if criteria is not None:
        args["success_criteria"] = criteria
    if mission.get("briefing") is not None:
        args["briefing"] = mission["briefing"]
    if tool.get("orchestrator_only_tool_calls") is not None:
        args["orchestrator_only_tool_calls"] = tool["orchestrator_only_tool_calls"]
    model_policy = parse_model_policy(body.get("model_policy"), field="model_policy", code=code)
    if model_policy:
        args["model_policy"] = model_policy
    _check_args(args, code, prefix="mission", model_field="model_policy")
    entrypoint = mission.get("entrypoint_compat") or DEFAULT_ENTRYPOINT
    if not isinstance(entrypoint, str):
        raise ValidationFailed(
            "`mission.entrypoint_compat` must be a string",
            field="mission.entrypoint_compat",
            code=code,
        )
    return RoutineFields(
        routine_id=routine_id or f"automation-{uuid.uuid4().hex}",
        name=name,
        status=_status(body.get("status"), code),
        schedule=schedule,
        misfire=misfire,
        entrypoint=entrypoint,
        args=args,
        allowed_tools=_tools(tool.get("run_allowlist"), "policy.tool.run_allowlist", code),
        output_targets=parse_output_targets(
            body.get("output_targets"), workspace=workspace, field="output_targets", code=code
        ),
        requires_approval=_bool(
            approval.get("requires_approval"), "policy.approval.requires_approval", False, code
        ),
        external_integrations_allowed=_bool(
            tool.get("external_integrations_allowed"),
            "policy.tool.external_integrations_allowed",
            False,
            code,
        ),
        creator_id=_opt_str(body, "creator_id", code) or "desktop",
        next_fire_at_ms=_opt_ms(body, "next_fire_at_ms", code),
    )


# ---------------------------------------------------------------------- patches
def patched_routine_body(
    current: Routine, patch: Mapping[str, Any], *, code: str
) -> dict[str, Any]:
    """The routine-shaped body ``current`` becomes with ``patch`` applied.

    ``args`` merge key by key (a null value removes a key); ``args.model_policy: {}``
    clears the model policy.
    """
    if not isinstance(patch, Mapping):
        raise ValidationFailed("request body must be a JSON object", field="$", code=code)
    body = current.definition()
    for key, value in patch.items():
        if key in (
            "routine_id",
            "created_at_ms",
            "updated_at_ms",
            "creator_type",
            "last_fired_at_ms",
        ):
            continue
        if key == "args":
            if not isinstance(value, Mapping):
                raise ValidationFailed("`args` must be an object", field="args", code=code)
            args = dict(body["args"])
            for arg, arg_value in value.items():
                if arg_value is None or (arg == "model_policy" and arg_value == {}):
                    args.pop(arg, None)
                else:
                    args[arg] = arg_value
            body["args"] = args
        elif key in ("mode", "orchestrator_only_tool_calls"):
            body["args"] = {**body["args"], key: value}
        else:
            body[key] = value
    return body


def patched_mission_body(
    current: Routine, patch: Mapping[str, Any], *, code: str
) -> dict[str, Any]:
    """The mission-shaped body ``current`` becomes with ``patch`` applied (``model_policy: {}``
    clears it)."""
    if not isinstance(patch, Mapping):
        raise ValidationFailed("request body must be a JSON object", field="$", code=code)
    wire = current.automation_wire()
    body: dict[str, Any] = {
        "automation_id": current.routine_id,
        "name": wire["name"],
        "status": wire["status"],
        "schedule": wire["schedule"],
        "timezone": wire["timezone"],
        "misfire_policy": wire["misfire_policy"],
        "mode": wire["mode"],
        "mission": dict(wire["mission"]),
        "policy": {k: dict(v) for k, v in wire["policy"].items()},
        "output_targets": wire["output_targets"],
        "model_policy": wire["model_policy"],
        "creator_id": current.creator_id,
    }
    for key, value in patch.items():
        if key in ("mission", "policy"):
            if not isinstance(value, Mapping):
                raise ValidationFailed(f"`{key}` must be an object", field=key, code=code)
            if key == "mission":
                body["mission"].update(value)
            else:
                for part, fields in value.items():
                    if not isinstance(fields, Mapping):
                        raise ValidationFailed(
                            f"`policy.{part}` must be an object", field=f"policy.{part}", code=code
                        )
                    body["policy"][part] = {**body["policy"].get(part, {}), **fields}
        elif key == "model_policy":
            if not isinstance(value, Mapping):
                raise ValidationFailed(
                    "model_policy must be an object (use {} to clear)",
                    field="model_policy",
                    code=code,
                )
            body["model_policy"] = dict(value) or None
        elif key in (
            "name",
            "status",
            "schedule",
            "timezone",
            "misfire_policy",
            "mode",
            "output_targets",
            "next_fire_at_ms",
        ):
            body[key] = value
    return body


# ---------------------------------------------------------------------- helpers
def _opt_id(body: Mapping[str, Any], key: str, code: str) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or "/" in value:
        raise ValidationFailed(
            f"`{key}` must be a non-empty string without `/`", field=key, code=code
        )
    return value.strip()


def _opt_str(body: Mapping[str, Any], key: str, code: str) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationFailed(f"`{key}` must be a string", field=key, code=code)
    return value.strip() or None


def _opt_ms(body: Mapping[str, Any], key: str, code: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationFailed(f"`{key}` must be epoch milliseconds", field=key, code=code)
    return value


def _name(value: Any, fallback: str | None, code: str) -> str:
    if value is None and fallback:
        return fallback
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed("`name` must be a non-empty string", field="name", code=code)
    return value.strip()


def _status(value: Any, code: str) -> str:
    if value is None:
        return "active"
    # Clients written against the published models send their own words.
    value = DEFINITION_STATUS_ALIASES.get(value, value) if isinstance(value, str) else value
    if value not in ROUTINE_STATUSES:
        raise ValidationFailed(
            f"`status` must be one of {', '.join(ROUTINE_STATUSES)}", field="status", code=code
        )
    return str(value)


def _bool(value: Any, field: str, default: bool, code: str) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValidationFailed(f"`{field}` must be a boolean", field=field, code=code)
    return value


def _tools(value: Any, field: str, code: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValidationFailed(f"`{field}` must be an array of tool ids", field=field, code=code)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ValidationFailed(
                f"`{field}[{index}]` must be a string", field=f"{field}[{index}]", code=code
            )
    return tuple(normalize_patterns(value))


def _args(value: Any, code: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationFailed("`args` must be an object", field="args", code=code)
    return dict(value)


def _check_args(
    args: dict[str, Any], code: str, *, prefix: str, model_field: str = "args.model_policy"
) -> None:
    mode = args.get("mode")
    if mode is not None and mode not in MODES:
        raise ValidationFailed("`mode` must be standalone or orchestrated", field="mode", code=code)
    if args.get("orchestrator_only_tool_calls") is not None and not isinstance(
        args["orchestrator_only_tool_calls"], bool
    ):
        raise ValidationFailed(
            "`orchestrator_only_tool_calls` must be a boolean",
            field="orchestrator_only_tool_calls",
            code=code,
        )
    prompt = args.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise ValidationFailed(
            f"`{prefix}.prompt` must be a string", field=f"{prefix}.prompt", code=code
        )
    criteria = args.get("success_criteria")
    if (
        criteria is not None
        and not isinstance(criteria, str)
        and not (isinstance(criteria, list) and all(isinstance(c, str) for c in criteria))
    ):
        raise ValidationFailed(
            f"`{prefix}.success_criteria` must be a string or an array of strings",
            field=f"{prefix}.success_criteria",
            code=code,
        )
    if "model_policy" in args:
        policy = parse_model_policy(args["model_policy"], field=model_field, code=code)
        if policy:
            args["model_policy"] = policy
        else:
            del args["model_policy"]


__all__ = [
    "AUTOMATION_CODE",
    "ROUTINE_CODE",
    "RoutineFields",
    "is_mission_shaped",
    "parse_body",
    "parse_mission_body",
    "parse_routine_body",
    "patched_mission_body",
    "patched_routine_body",
]
