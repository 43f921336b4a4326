"""The tiers moved so start-up builds no record class; they are still read from where they were."""

from __future__ import annotations

import svc.memory
from svc.memory import records, tiers


def test_the_tiers_are_one_set_of_objects_wherever_they_are_read() -> None:
    assert records.TIERS is tiers.TIERS is svc.memory.TIERS == ("global", "project", "session")
    assert records.Tier is tiers.Tier is svc.memory.Tier
    assert records.WIDER_TIER is tiers.WIDER_TIER
