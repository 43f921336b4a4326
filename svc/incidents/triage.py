"""Triage runs: an automation v2 run per draft (filled in below)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .service import IncidentService


async def recover_timed_out(service: IncidentService) -> None:
    return None
