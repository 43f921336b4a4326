"""The incident monitor's security routes (reference §1.21 to §1.27). Thin: parse, delegate.

Every route is dry-run, read-only towards external systems and admin-only. "Admin" is
the caller the engine gate admitted with the full engine token (any local caller when
the engine runs without one, on loopback): a scoped intake key is refused by the gate
(403 ``INCIDENT_MONITOR_INTAKE_KEY_FORBIDDEN``) and a missing or wrong token gets 401
``AUTH_REQUIRED``. On top of that a request that declares itself an agent
(``x-svc-request-source`` outside the human sources, or an ``x-svc-agent-id``) is
refused 403 with the route's ``..._ADMIN_REQUIRED`` code: an agent may not audit the
authority it holds (see docs/incidents.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint, request

from ...errors import Forbidden
from ..request import json_body
from .incidents import incidents

if TYPE_CHECKING:
    from ...incidents.security import IncidentSecurity

bp = Blueprint("incidents_security", __name__)
S = "/incident-monitor/security"

INVENTORY_CODE = "INCIDENT_MONITOR_AUTHORITY_INVENTORY_ADMIN_REQUIRED"
REPORT_CODE = "INCIDENT_MONITOR_ASSESSMENT_REPORT_ADMIN_REQUIRED"
CARDS_CODE = "INCIDENT_MONITOR_DEPLOYMENT_CARDS_ADMIN_REQUIRED"
PACKS_CODE = "INCIDENT_MONITOR_SCENARIO_PACKS_ADMIN_REQUIRED"
"""Also the code of governance metrics and reassessments, as in the reference."""
HUMAN_SOURCES = frozenset(
    {"api_token", "control_panel", "local_api_token", "local_control_panel", "admin", "cli"}
)


class SecurityAdminRequired(Forbidden):
    """This security route needs the engine's admin caller."""

    code = "INCIDENT_MONITOR_SECURITY_ADMIN_REQUIRED"


def security(code: str) -> IncidentSecurity:
    """The security facade, once the caller is known to be the admin."""
    source = (request.headers.get("x-svc-request-source") or "").strip().lower()
    agent = (request.headers.get("x-svc-agent-id") or "").strip()
    if agent or (source and source not in HUMAN_SOURCES):
        raise SecurityAdminRequired(
            "incident monitor security routes need the full admin token, not an agent", code=code
        )
    return incidents().security


@bp.get(f"{S}/authority-inventory")
async def authority_inventory() -> Any:
    return await security(INVENTORY_CODE).authority_inventory()


@bp.get(f"{S}/posture-checks")
async def posture_checks() -> Any:
    return await security(INVENTORY_CODE).posture_checks(request.args)


@bp.post(f"{S}/assessment-probes")
async def assessment_probes() -> Any:
    guard = security(REPORT_CODE)
    return await guard.assessment_probes(await json_body())


@bp.post(f"{S}/assessment-report")
async def assessment_report() -> Any:
    guard = security(REPORT_CODE)
    return await guard.assessment_report(await json_body())


@bp.get(f"{S}/evidence")
async def evidence_artifacts() -> Any:
    return await security(REPORT_CODE).evidence_artifacts()


@bp.get(f"{S}/evidence/<context_run_id>")
async def evidence_artifact(context_run_id: str) -> Any:
    return await security(REPORT_CODE).evidence_artifact(context_run_id)


@bp.post(f"{S}/deployment-cards")
async def deployment_cards() -> Any:
    guard = security(CARDS_CODE)
    return await guard.deployment_cards(await json_body())


@bp.get(f"{S}/scenario-packs")
async def scenario_packs() -> Any:
    return security(PACKS_CODE).scenario_packs()


@bp.post(f"{S}/scenario-packs")
async def run_scenario_pack() -> Any:
    guard = security(PACKS_CODE)
    return await guard.run_scenario_pack(await json_body())


@bp.post(f"{S}/governance-metrics")
async def governance_metrics() -> Any:
    guard = security(PACKS_CODE)
    return await guard.governance_metrics(await json_body())


@bp.get(f"{S}/reassessments")
async def reassessments() -> Any:
    return await security(PACKS_CODE).reassessments()


@bp.post(f"{S}/reassessments")
async def reassess_now() -> Any:
    return await security(PACKS_CODE).reassess_now()
