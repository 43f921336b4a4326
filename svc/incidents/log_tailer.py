"""Log source tailing (filled in below)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .service import IncidentService


async def poll_due_sources(service: IncidentService) -> None:
    return None
