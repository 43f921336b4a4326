"""Schedule math: pure functions of (schedule, policy, times). No clock, no I/O.

Times are wall-clock milliseconds since the epoch. A schedule produces *slots*
(the instants it is meant to fire at); ``next_fire_at_ms`` is always the next
slot not yet handled. When the scheduler finds slots due it makes a
:class:`FirePlan`:

* exactly one slot due, no later than ``grace_ms``: an on-time fire, run once
  whatever the policy;
* otherwise fires were missed (the engine was down, or the previous run was
  still busy): ``skip`` runs none of them, ``run_once`` runs the latest one,
  ``catch_up{max_runs}`` runs the latest ``max_runs`` of them.

Either way ``next_fire_at_ms`` moves to the first slot after now. Interval slots
stay on their grid (``first + k * interval``), so a late tick never drifts the
schedule; cron slots are computed in the schedule's time zone (DST included).
"""

from __future__ import annotations

import zoneinfo
from collections import deque
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

import attrs

from .schedule import MisfirePolicy, Schedule, croniter_expression

if TYPE_CHECKING:
    from croniter import croniter

CRON_SCAN_LIMIT = 1000
"""Missed cron slots counted at most (the count only decides on-time versus missed)."""


@attrs.frozen
class FirePlan:
    fires: tuple[int, ...]
    """Slots to run now (their scheduled times), oldest first."""
    due: int
    """Slots that were due (for cron, counted up to :data:`CRON_SCAN_LIMIT`)."""
    missed: bool
    """True when the misfire policy decided (more than one slot due, or one beyond the grace)."""
    next_fire_at_ms: int | None


@lru_cache(maxsize=256)
def _zone(name: str) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(name)


def _cron(schedule: Schedule, start_ms: int) -> croniter:
    start = datetime.fromtimestamp(start_ms / 1000.0, _zone(schedule.timezone))
    # Imported on first use: parsing a cron expression is rare, and the import is a
    # noticeable share of engine start-up.
    from croniter import croniter

    return croniter(croniter_expression(schedule), start)


def slot_after(schedule: Schedule, after_ms: int) -> int | None:
    """The first cron slot strictly after ``after_ms`` (None for manual schedules).

    For intervals there is no absolute grid: use :func:`first_fire_at`.
    """
    if schedule.kind == "cron":
        return round(_cron(schedule, after_ms).get_next(float) * 1000)
    if schedule.kind == "interval":
        assert schedule.interval_ms is not None
        return after_ms + schedule.interval_ms
    return None


def first_fire_at(schedule: Schedule, now_ms: int) -> int | None:
    """Where a new (or re-activated) schedule starts: an interval on, or the next cron slot."""
    return slot_after(schedule, now_ms)


def plan_fires(
    schedule: Schedule, policy: MisfirePolicy, next_fire_at_ms: int, now_ms: int, *, grace_ms: int
) -> FirePlan:
    """What to do about a schedule whose ``next_fire_at_ms`` is due (``<= now_ms``)."""
    if schedule.kind == "manual":
        return FirePlan((), 0, False, None)
    if next_fire_at_ms > now_ms:
        return FirePlan((), 0, False, next_fire_at_ms)
    every = schedule.interval_ms
    if (
        every is not None
        and now_ms - next_fire_at_ms < every
        and now_ms - next_fire_at_ms <= grace_ms
    ):
        # The common case, on time: one slot due, within the grace (the policy has no say).
        return FirePlan((next_fire_at_ms,), 1, False, next_fire_at_ms + every)
    keep = _keep(policy)
    if schedule.kind == "interval":
        interval = schedule.interval_ms
        assert interval is not None
        due = (now_ms - next_fire_at_ms) // interval + 1
        latest = next_fire_at_ms + (due - 1) * interval
        following = next_fire_at_ms + due * interval
        recent = tuple(latest - i * interval for i in range(min(max(keep, 1), due)))[::-1]
    else:
        after = slot_after(schedule, now_ms)
        assert after is not None
        following = after
        due, recent = _cron_due(schedule, next_fire_at_ms, now_ms, max(keep, 1))
        latest = recent[-1]
    if due == 1 and now_ms - latest <= grace_ms:
        return FirePlan((latest,), 1, False, following)
    fires = recent[max(0, len(recent) - keep) :] if keep else ()
    return FirePlan(tuple(fires), due, True, following)


def _keep(policy: MisfirePolicy) -> int:
    if policy.kind == "skip":
        return 0
    if policy.kind == "catch_up":
        return policy.max_runs or 1
    return 1


def _cron_due(
    schedule: Schedule, first_ms: int, now_ms: int, keep: int
) -> tuple[int, tuple[int, ...]]:
    """(slots due in ``[first_ms, now_ms]``, the latest ``keep`` of them oldest first).

    Walks back from now, so the cost is bounded by :data:`CRON_SCAN_LIMIT`
    however long the outage was.
    """
    iterator = _cron(schedule, now_ms + 1)
    recent: deque[int] = deque()
    due = 0
    while due < CRON_SCAN_LIMIT:
        slot = round(iterator.get_prev(float) * 1000)
        if slot < first_ms:
            break
        due += 1
        if len(recent) < keep:
            recent.appendleft(slot)
    if due == 0:
        # The stored slot itself is due but not on the expression's grid any
        # more (the expression was edited): treat it as the one due slot.
        return 1, (first_ms,)
    return due, tuple(recent)


__all__ = ["CRON_SCAN_LIMIT", "FirePlan", "first_fire_at", "plan_fires", "slot_after"]
