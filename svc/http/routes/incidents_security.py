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
