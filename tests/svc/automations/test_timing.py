"""Schedule math (pure): next fire times and misfire plans."""

from __future__ import annotations

import pytest

from svc.automations.scheduler import (
    MisfirePolicy,
    Schedule,
    first_fire_at,
    parse_misfire,
    plan_fires,
)
from svc.errors import ValidationFailed

EVERY_SECOND = Schedule("interval", interval_seconds=1)
T = 1_767_225_600_000  # 2026-01-01T00:00:00Z
GRACE = 60_000


def test_an_on_time_fire_runs_once_whatever_the_policy() -> None:
    for policy in (MisfirePolicy("skip"), MisfirePolicy(), MisfirePolicy("catch_up", 5)):
        plan = plan_fires(EVERY_SECOND, policy, T, T + 200, grace_ms=GRACE)
        assert (plan.fires, plan.missed, plan.next_fire_at_ms) == ((T,), False, T + 1000)


def test_a_single_fire_later_than_the_grace_is_a_misfire() -> None:
    hourly = Schedule("interval", interval_seconds=3600)
    late = T + 120_000
    assert plan_fires(hourly, MisfirePolicy("skip"), T, late, grace_ms=GRACE).fires == ()
    assert plan_fires(hourly, MisfirePolicy(), T, late, grace_ms=GRACE).fires == (T,)


@pytest.mark.parametrize(
    ("policy", "fires"),
    [
        (MisfirePolicy("skip"), ()),
        (MisfirePolicy("run_once"), (T + 9000,)),
        (MisfirePolicy("catch_up", 3), (T + 7000, T + 8000, T + 9000)),
        (MisfirePolicy("catch_up", 20), tuple(T + 1000 * k for k in range(10))),
    ],
)
def test_missed_interval_fires_follow_the_policy_and_stay_on_the_grid(
    policy: MisfirePolicy, fires: tuple[int, ...]
) -> None:
    plan = plan_fires(EVERY_SECOND, policy, T, T + 9_500, grace_ms=GRACE)
    assert plan.fires == fires and plan.due == 10 and plan.missed
    assert plan.next_fire_at_ms == T + 10_000


def test_catch_up_with_fewer_missed_fires_than_max_runs_runs_them_all() -> None:
    plan = plan_fires(EVERY_SECOND, MisfirePolicy("catch_up", 5), T, T + 2_000, grace_ms=GRACE)
    assert plan.fires == (T, T + 1000, T + 2000)


def test_cron_in_a_time_zone_and_across_dst() -> None:
    berlin = Schedule("cron", cron_expression="30 2 * * *", timezone="Europe/Berlin")
    assert first_fire_at(berlin, T) == T + 5_400_000  # 02:30 CET = 01:30Z
    # 2026-03-29 02:30 does not exist in Berlin (clocks jump from 02:00 to 03:00): that day's fire
    # happens when the clocks land, at 03:00 CEST; the next day it is 02:30 CEST again.
    before_dst = 1_774_742_400_000  # 2026-03-29T00:00:00Z
    assert first_fire_at(berlin, before_dst) == 1_774_746_000_000  # 2026-03-29T01:00:00Z
    assert first_fire_at(berlin, 1_774_746_000_000) == 1_774_830_600_000  # 2026-03-30T00:30:00Z
    seconds_first = Schedule("cron", cron_expression="15 * * * * *", timezone="UTC")
    assert first_fire_at(seconds_first, T) == T + 15_000


def test_missed_cron_slots_are_counted_back_from_now() -> None:
    minutely = Schedule("cron", cron_expression="* * * * *", timezone="UTC")
    plan = plan_fires(minutely, MisfirePolicy("catch_up", 2), T, T + 600_500, grace_ms=GRACE)
    assert plan.due == 11 and plan.fires == (T + 540_000, T + 600_000)
    assert plan.next_fire_at_ms == T + 660_000
    # A year of missed minutes costs a bounded scan.
    long = plan_fires(minutely, MisfirePolicy(), T, T + 365 * 86_400_000, grace_ms=GRACE)
    assert long.fires == (T + 365 * 86_400_000,) and long.due == 1000


def test_manual_schedules_never_fire() -> None:
    manual = Schedule("manual")
    assert first_fire_at(manual, T) is None
    assert plan_fires(manual, MisfirePolicy(), T, T + 10_000, grace_ms=GRACE).fires == ()


def test_misfire_policies_parse_from_strings_and_objects() -> None:
    assert parse_misfire("run_once", field="m", code="X") == MisfirePolicy("run_once")
    assert parse_misfire({"type": "catch_up", "max_runs": 4}, field="m", code="X") == MisfirePolicy(
        "catch_up", 4
    )
    with pytest.raises(ValidationFailed) as caught:
        parse_misfire({"type": "sometimes"}, field="misfire_policy", code="X")
    assert caught.value.extra["field"] == "misfire_policy.type"
    with pytest.raises(ValidationFailed):
        parse_misfire("catch_up", field="misfire_policy", code="X")
