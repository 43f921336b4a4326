"""Schedules, misfire policies, the pure schedule math, the fire journal, and the scheduler."""

from __future__ import annotations

from ...lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".journal": [
            "FireJournal",
            "JournalRow",
        ],
        ".schedule": [
            "MisfirePolicy",
            "Schedule",
            "parse_cron",
            "parse_misfire",
            "parse_routine_schedule",
            "parse_timezone",
            "parse_v2_schedule",
        ],
        ".signal": [
            "ScheduleEntry",
            "ScheduleSignal",
        ],
        ".timing": [
            "FirePlan",
            "first_fire_at",
            "plan_fires",
            "slot_after",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
