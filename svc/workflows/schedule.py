"""Plan schedules: the automation v2 schedule shape, normalized.

``{"type": "manual" | "interval" | "cron", "interval_seconds"?, "cron_expression"?,
"timezone": "UTC", "misfire_policy": {"type": "run_once" | "skip" | "catch_up", "max_runs"?}}``.
``misfire_policy`` is also accepted as a plain string, and camelCase keys
(``intervalSeconds``, ``cronExpression``, ``misfirePolicy``) are folded. Cron
expressions are checked with croniter, time zones with zoneinfo.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import PlanInvalid

MISFIRE_KINDS = ("run_once", "skip", "catch_up")
_CAMEL = {
    "intervalSeconds": "interval_seconds",
    "cronExpression": "cron_expression",
    "misfirePolicy": "misfire_policy",
    "timeZone": "timezone",
    "maxRuns": "max_runs",
}


def manual_schedule(timezone: str = "UTC") -> dict[str, Any]:
    return {"type": "manual", "timezone": timezone, "misfire_policy": {"type": "run_once"}}


def normalize_schedule(raw: Any, *, field: str = "schedule") -> dict[str, Any]:
    """The canonical schedule for ``raw`` (``None``: manual); raises :class:`PlanInvalid` naming the
    field."""
    if raw is None:
        return manual_schedule()
    if isinstance(raw, str):
        raw = {"type": raw}
    if not isinstance(raw, Mapping):
        raise PlanInvalid(f"`{field}` must be an object", field=field)
    data = {_CAMEL.get(k, k): v for k, v in raw.items()}
    kind = data.get("type", "manual")
    if kind not in ("manual", "interval", "cron"):
        raise PlanInvalid(f"`{field}.type` must be manual, interval or cron", field=f"{field}.type")
    timezone = data.get("timezone") or "UTC"
    if not isinstance(timezone, str):
        raise PlanInvalid(f"`{field}.timezone` must be a string", field=f"{field}.timezone")
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise PlanInvalid(
            f"`{field}.timezone` `{timezone}` is not a known time zone", field=f"{field}.timezone"
        ) from None
    schedule: dict[str, Any] = {
        "type": kind,
        "timezone": timezone,
        "misfire_policy": _misfire(data.get("misfire_policy"), f"{field}.misfire_policy"),
    }
    if kind == "interval":
        seconds = data.get("interval_seconds")
        if isinstance(seconds, Mapping):
            seconds = seconds.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 1:
            raise PlanInvalid(
                f"`{field}.interval_seconds` must be a positive integer",
                field=f"{field}.interval_seconds",
            )
        schedule["interval_seconds"] = seconds
    elif kind == "cron":
        expression = data.get("cron_expression")
        # Imported on first use: parsing a cron expression is rare, and the import is a
        # noticeable share of engine start-up.
        from croniter import croniter

        if not isinstance(expression, str) or not croniter.is_valid(expression.strip()):
            raise PlanInvalid(
                f"`{field}.cron_expression` must be a valid cron expression",
                field=f"{field}.cron_expression",
            )
        schedule["cron_expression"] = expression.strip()
    return schedule


def _misfire(raw: Any, field: str) -> dict[str, Any]:
    if raw is None:
        return {"type": "run_once"}
    if isinstance(raw, str):
        raw = {"type": raw}
    if not isinstance(raw, Mapping) or raw.get("type") not in MISFIRE_KINDS:
        raise PlanInvalid(f"`{field}` must be one of {', '.join(MISFIRE_KINDS)}", field=field)
    policy: dict[str, Any] = {"type": raw["type"]}
    if raw["type"] == "catch_up":
        max_runs = raw.get("max_runs", raw.get("maxRuns", 1))
        if isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 1:
            raise PlanInvalid(
                f"`{field}.max_runs` must be a positive integer", field=f"{field}.max_runs"
            )
        policy["max_runs"] = max_runs
    return policy


def is_manual(schedule: Mapping[str, Any] | None) -> bool:
    return schedule is None or schedule.get("type", "manual") == "manual"


__all__ = ["MISFIRE_KINDS", "is_manual", "manual_schedule", "normalize_schedule"]
