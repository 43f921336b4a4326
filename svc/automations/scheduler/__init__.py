"""Schedules, misfire policies, the pure schedule math, the fire journal, and the scheduler itself."""

from .journal import FireJournal, JournalRow
from .schedule import (
    MisfirePolicy,
    Schedule,
    parse_cron,
    parse_misfire,
    parse_routine_schedule,
    parse_timezone,
    parse_v2_schedule,
)
from .signal import ScheduleEntry, ScheduleSignal
from .timing import FirePlan, first_fire_at, plan_fires, slot_after

__all__ = [
    "FireJournal",
    "FirePlan",
    "JournalRow",
    "MisfirePolicy",
    "Schedule",
    "ScheduleEntry",
    "ScheduleSignal",
    "first_fire_at",
    "parse_cron",
    "parse_misfire",
    "parse_routine_schedule",
    "parse_timezone",
    "parse_v2_schedule",
    "plan_fires",
    "slot_after",
]
