"""Schedules and misfire policies: the records, and parsing them from request bodies.

Two body dialects exist: the routine one (``{"interval_seconds": {"seconds": N}}`` or
``{"cron": {"expression": "0 8 * * *"}}`` with ``timezone`` and ``misfire_policy``
beside it) and the automation v2 one (``{"type": "interval", "interval_seconds": N,
"timezone": "UTC", "misfire_policy": ...}``). Both parse into :class:`Schedule`.
A misfire policy is ``{"type": "skip" | "run_once"}``, ``{"type": "catch_up",
"max_runs": N}``, or the bare strings ``"skip"`` / ``"run_once"``.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ...errors import ValidationFailed

ScheduleKind = Literal["interval", "cron", "manual"]
MisfireKind = Literal["skip", "run_once", "catch_up"]

MAX_CATCH_UP_RUNS = 100


@attrs.frozen
class MisfirePolicy:
    kind: MisfireKind = "run_once"
    max_runs: int | None = None
    """For ``catch_up``: at most this many of the missed fires are run."""

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.kind}
        if self.kind == "catch_up":
            wire["max_runs"] = self.max_runs
        return wire


@attrs.frozen
class Schedule:
    kind: ScheduleKind
    interval_seconds: int | None = None
    cron_expression: str | None = None
    """A 5-field cron expression, or 6 fields with seconds first."""
    timezone: str = "UTC"

    @property
    def interval_ms(self) -> int | None:
        return self.interval_seconds * 1000 if self.interval_seconds else None

    def routine_wire(self) -> dict[str, Any]:
        """The routine dialect (``schedule`` only; timezone and misfire sit beside it)."""
        if self.kind == "interval":
            return {"interval_seconds": {"seconds": self.interval_seconds}}
        if self.kind == "cron":
            return {"cron": {"expression": self.cron_expression}}
        return {"manual": {}}

    def v2_wire(self, misfire: MisfirePolicy) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.kind}
        if self.kind == "interval":
            wire["interval_seconds"] = self.interval_seconds
        if self.kind == "cron":
            wire["cron_expression"] = self.cron_expression
        wire["timezone"] = self.timezone
        wire["misfire_policy"] = misfire.to_wire()
        return wire


# ---------------------------------------------------------------------- parsing
def parse_timezone(value: Any, *, field: str, code: str) -> str:
    if value is None:
        return "UTC"
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed(
            f"`{field}` must be an IANA time zone name such as `UTC`", field=field, code=code
        )
    name = value.strip()
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed(
            f"`{field}` `{name}` is not a known IANA time zone", field=field, code=code
        ) from None
    return name


def parse_misfire(value: Any, *, field: str, code: str) -> MisfirePolicy:
    if value is None:
        return MisfirePolicy()
    if isinstance(value, str):
        kind = value.strip()
        if kind == "skip":
            return MisfirePolicy("skip")
        if kind == "run_once":
            return MisfirePolicy("run_once")
        if kind == "catch_up":
            raise ValidationFailed(
                f'`{field}` catch_up needs max_runs: use {{"type": "catch_up", "max_runs": N}}',
                field=field,
                code=code,
            )
        raise ValidationFailed(
            f"`{field}` must be skip, run_once or catch_up", field=field, code=code
        )
    if not isinstance(value, Mapping):
        raise ValidationFailed(f"`{field}` must be an object or a string", field=field, code=code)
    named = value.get("type")
    if named == "skip" or named == "run_once":
        return MisfirePolicy(named)
    if named == "catch_up":
        max_runs = value.get("max_runs", value.get("maxRuns"))
        if (
            isinstance(max_runs, bool)
            or not isinstance(max_runs, int)
            or not 1 <= max_runs <= MAX_CATCH_UP_RUNS
        ):
            raise ValidationFailed(
                f"`{field}.max_runs` must be an integer from 1 to {MAX_CATCH_UP_RUNS}",
                field=f"{field}.max_runs",
                code=code,
            )
        return MisfirePolicy("catch_up", max_runs)
    raise ValidationFailed(
        f"`{field}.type` must be skip, run_once or catch_up", field=f"{field}.type", code=code
    )


def parse_cron(expression: Any, *, field: str, code: str) -> str:
    """Validate a cron expression with croniter; 6 fields are read as seconds-first."""
    if not isinstance(expression, str) or not expression.strip():
        raise ValidationFailed(
            f"`{field}` must be a cron expression such as `0 8 * * *`", field=field, code=code
        )
    text = " ".join(expression.split())
    fields = text.split(" ")
    if len(fields) not in (5, 6):
        raise ValidationFailed(
            f"`{field}` must have 5 fields (or 6 with seconds first), not {len(fields)}",
            field=field,
            code=code,
        )
    # Imported on first use: parsing a cron expression is rare, and the import is a
    # noticeable share of engine start-up.
    from croniter import croniter

    if not croniter.is_valid(_croniter_form(text)):
        raise ValidationFailed(
            f"`{field}` `{text}` is not a valid cron expression", field=field, code=code
        )
    return text


def _croniter_form(expression: str) -> str:
    """croniter reads a sixth field as seconds *last*; ours is seconds first."""
    fields = expression.split(" ")
    if len(fields) == 6:
        return " ".join([*fields[1:], fields[0]])
    return expression


def croniter_expression(schedule: Schedule) -> str:
    assert schedule.cron_expression is not None
    return _croniter_form(schedule.cron_expression)


def _interval(value: Any, *, field: str, code: str) -> int:
    if isinstance(value, Mapping):
        value = value.get("seconds")
        field = f"{field}.seconds"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationFailed(
            f"`{field}` must be a whole number of seconds", field=field, code=code
        )
    if value <= 0:
        raise ValidationFailed(
            f"`{field}` must be greater than zero", field=field, code="INVALID_ROUTINE_SCHEDULE"
        )
    return value


def parse_routine_schedule(
    schedule: Any, timezone: Any, misfire: Any, *, code: str, prefix: str = ""
) -> tuple[Schedule, MisfirePolicy]:
    """The routine dialect; also accepts the v2 dialect (``type`` key) for convenience."""
    field = f"{prefix}schedule"
    if not isinstance(schedule, Mapping):
        raise ValidationFailed(
            f'`{field}` must be an object such as {{"interval_seconds": {{"seconds": 60}}}}',
            field=field,
            code=code,
        )
    if "type" in schedule:
        return parse_v2_schedule(
            schedule, code=code, prefix=prefix, timezone=timezone, misfire=misfire
        )
    tz = parse_timezone(timezone, field=f"{prefix}timezone", code=code)
    policy = parse_misfire(misfire, field=f"{prefix}misfire_policy", code=code)
    if "interval_seconds" in schedule:
        seconds = _interval(
            schedule["interval_seconds"], field=f"{field}.interval_seconds", code=code
        )
        return Schedule("interval", interval_seconds=seconds, timezone=tz), policy
    if "cron" in schedule:
        cron = schedule["cron"]
        expression = cron.get("expression") if isinstance(cron, Mapping) else cron
        return Schedule(
            "cron",
            cron_expression=parse_cron(expression, field=f"{field}.cron.expression", code=code),
            timezone=tz,
        ), policy
    raise ValidationFailed(f"`{field}` needs `interval_seconds` or `cron`", field=field, code=code)


def parse_v2_schedule(
    schedule: Any, *, code: str, prefix: str = "", timezone: Any = None, misfire: Any = None
) -> tuple[Schedule, MisfirePolicy]:
    """``{"type": "interval"|"cron"|"manual", ...}``; a missing schedule is manual."""
    field = f"{prefix}schedule"
    if schedule is None:
        return Schedule(
            "manual", timezone=parse_timezone(timezone, field=f"{field}.timezone", code=code)
        ), parse_misfire(misfire, field=f"{field}.misfire_policy", code=code)
    if not isinstance(schedule, Mapping):
        raise ValidationFailed(f"`{field}` must be an object", field=field, code=code)
    kind = schedule.get("type", "manual")
    tz = parse_timezone(schedule.get("timezone", timezone), field=f"{field}.timezone", code=code)
    policy = parse_misfire(
        schedule.get("misfire_policy", misfire), field=f"{field}.misfire_policy", code=code
    )
    if kind == "interval":
        seconds = _interval(
            schedule.get("interval_seconds"), field=f"{field}.interval_seconds", code=code
        )
        return Schedule("interval", interval_seconds=seconds, timezone=tz), policy
    if kind == "cron":
        expression = schedule.get("cron_expression", schedule.get("cron"))
        if isinstance(expression, Mapping):
            expression = expression.get("expression")
        return Schedule(
            "cron",
            cron_expression=parse_cron(expression, field=f"{field}.cron_expression", code=code),
            timezone=tz,
        ), policy
    if kind == "manual":
        return Schedule("manual", timezone=tz), policy
    raise ValidationFailed(
        f"`{field}.type` must be interval, cron or manual", field=f"{field}.type", code=code
    )


__all__ = [
    "MAX_CATCH_UP_RUNS",
    "MisfireKind",
    "MisfirePolicy",
    "Schedule",
    "ScheduleKind",
    "croniter_expression",
    "parse_cron",
    "parse_misfire",
    "parse_routine_schedule",
    "parse_timezone",
    "parse_v2_schedule",
]
