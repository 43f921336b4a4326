"""The incident monitor's security and governance front door (``engine.incidents.security``).

Every operation here is dry-run and read-only towards external systems: it reads the
engine's configuration and records, and writes only its own evidence (reassessment
records, assessment artifacts, audit rows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import not_found
from .reassessment import Reassessment, config_triggers
from .security_repository import SecurityRepository

if TYPE_CHECKING:
    from .config import MonitorConfig
    from .service import IncidentService

CONTINUOUS_SCOPE = "incident_monitor_continuous_reassessment"


def scope(source: str, **extra: Any) -> dict[str, Any]:
    from .authority_inventory import LOCAL_TENANT

    return {
        "source": source,
        "read_only": True,
        "dry_run": True,
        "redacted": True,
        "mutates_external_systems": False,
        "admin_invoked": True,
        "tenant_context": dict(LOCAL_TENANT),
        **extra,
    }


class IncidentSecurity:
    def __init__(self, service: IncidentService) -> None:
        self.service = service
        self.repo = SecurityRepository(service.engine.store)
        self.reassessment = Reassessment(service)

    async def authority_inventory(self) -> dict[str, Any]:
        from .authority_inventory import build_inventory

        return await build_inventory(self.service)

    async def posture_checks(self, query: Mapping[str, Any]) -> dict[str, Any]:
        from .posture import posture_checks

        return await posture_checks(self.service, query)

    async def assessment_probes(self, body: Any) -> dict[str, Any]:
        from .posture import run_probes

        return await run_probes(self.service, body)

    async def governance_metrics(self, body: Any) -> dict[str, Any]:
        from .governance_metrics import governance_metrics

        result = await governance_metrics(self.service, body)
        return {
            "scope": scope("incident_monitor_governance_maturity_metrics"),
            "governance_maturity": result,
        }

    def scenario_packs(self) -> dict[str, Any]:
        from .scenarios import default_pack

        return {
            "schema_version": 1,
            "scope": scope("incident_monitor_adversarial_scenario_packs"),
            "packs": [default_pack()],
            "note": "POST runs the built-in pack, a subset (scenario_ids) or a custom pack "
            "(pack) through the route preview, dry-run",
        }

    async def run_scenario_pack(self, body: Any) -> dict[str, Any]:
        from .scenarios import run_request

        pack = await run_request(self.service, body)
        return {
            "schema_version": 1,
            "scope": scope("incident_monitor_adversarial_scenario_packs"),
            "pack": pack,
        }

    async def assessment_report(self, body: Any) -> dict[str, Any]:
        from .assessment_report import build_report

        return await build_report(self.service, body)

    async def evidence_artifacts(self) -> dict[str, Any]:
        artifacts = await self.repo.artifacts(limit=50)
        return {"artifacts": artifacts, "count": len(artifacts)}

    async def evidence_artifact(self, context_run_id: str) -> dict[str, Any]:
        found = await self.repo.artifact(context_run_id)
        if found is None:
            raise not_found(
                "EVIDENCE_NOT_FOUND",
                f"evidence `{context_run_id}` not found",
                context_run_id=context_run_id,
            )
        return {"artifact": found}

    async def deployment_cards(self, body: Any) -> dict[str, Any]:
        from .deployment_cards import build_cards

        return await build_cards(self.service, body)

    async def reassess_now(self) -> dict[str, Any]:
        record = await self.reassessment.run("manual", "admin-invoked reassessment")
        return {
            "scope": scope(CONTINUOUS_SCOPE),
            "reassessment": record,
            "schedule": await self.reassessment.schedule(),
        }

    async def reassessments(self) -> dict[str, Any]:
        schedule = await self.reassessment.schedule()
        records = await self.repo.records(limit=50)
        return {
            "scope": scope(CONTINUOUS_SCOPE),
            "counts": {
                "records": await self.repo.count(),
                "overdue_scopes": sum(r["overdue"] for r in schedule),
            },
            "schedule": schedule,
            "records": records,
        }

    async def config_changed(self, previous: MonitorConfig, saved: MonitorConfig) -> None:
        """Queue the reassessment trigger a config save implies (one pending per scope)."""
        if not saved.reassessment.change_triggers_enabled:
            return
        triggers = config_triggers(previous, saved)
        if triggers:
            await self.reassessment.queue(triggers[0], ", ".join(triggers))

    async def reassess_due(self) -> None:
        """The monitor's tick: run scopes due by cadence or with a pending trigger."""
        await self.reassessment.tick()
