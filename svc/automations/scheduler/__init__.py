"""Schedules, misfire policies, the pure schedule math, the fire journal, and the scheduler."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...lazy import LazyExports

if TYPE_CHECKING:
    from .journal import FireJournal as FireJournal
    from .journal import JournalRow as JournalRow
    from .schedule import (
        MisfirePolicy as MisfirePolicy,
    )
    from .schedule import (
        Schedule as Schedule,
    )
    from .schedule import (
        parse_cron as parse_cron,
    )
    from .schedule import (
        parse_misfire as parse_misfire,
    )
    from .schedule import (
        parse_routine_schedule as parse_routine_schedule,
    )
    from .schedule import (
        parse_timezone as parse_timezone,
    )
    from .schedule import (
        parse_v2_schedule as parse_v2_schedule,
    )
    from .signal import ScheduleEntry as ScheduleEntry
    from .signal import ScheduleSignal as ScheduleSignal
    from .timing import (
        FirePlan as FirePlan,
    )
    from .timing import (
        first_fire_at as first_fire_at,
    )
    from .timing import (
        plan_fires as plan_fires,
    )
    from .timing import (
        slot_after as slot_after,
    )

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
