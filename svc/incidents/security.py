"""The incident monitor's security and governance front door (``engine.incidents.security``).

Every operation here is dry-run and read-only towards external systems: it reads the
engine's configuration and records, and writes only its own evidence (reassessment
records, assessment artifacts, audit rows, policy decisions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import MonitorConfig
    from .service import IncidentService


class IncidentSecurity:
    def __init__(self, service: IncidentService) -> None:
        self.service = service

    async def authority_inventory(self) -> dict[str, Any]:
        from .authority_inventory import build_inventory

        return await build_inventory(self.service)

    async def config_changed(self, previous: MonitorConfig, saved: MonitorConfig) -> None:
        """Queue the reassessment triggers a config save implies (one pending per scope)."""
        return None

    async def reassess_due(self) -> None:
        """The monitor's tick: run scopes due by cadence or with a pending trigger."""
        return None
