"""The enterprise facade: what the routes call.

Each request comes with a :class:`~svc.enterprise.tenant.Caller`; every read and
write is confined to the caller's tenant. Changes to one stored record (a patch,
a credential rotation, a quarantine review, an import of a binding) take a turn
of ``serial`` keyed by tenant and record, so two requests never interleave a
read-modify-write of the same record. The work of each area lives in its own
module, imported on first use: :mod:`.governance`, :mod:`.connectors`,
:mod:`.readiness`, :mod:`.preview`, :mod:`.ingestion`, :mod:`.memory_access`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from actors import SerialByKey

from .connector_repository import ConnectorRepository, SourceBindingRepository
from .governance_repository import GrantRepository, MembershipRepository, OrgUnitRepository
from .ingestion_repository import IngestionJobRepository, QuarantineRepository
from .policy_repository import CrossTenantGrantRepository, PolicyRepository
from .source_object_repository import SourceObjectRepository

if TYPE_CHECKING:
    from ..engine import Engine
    from .tenant import Caller

TOPIC = "enterprise"

STATUS_CAPABILITIES = (
    "status",
    "tenant_context",
    "readiness",
    "onboarding_preview",
    "org_units",
    "memberships",
    "access_grants",
    "connectors",
    "credential_refs",
    "source_bindings",
    "local_directory_ingestion",
    "quarantine_review",
    "connector_impact",
    "data_class_memory_search",
    "source_objects",
    "cross_tenant_grants",
    "policies",
)


class EnterpriseService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        store = engine.store
        self.org_units = OrgUnitRepository(store)
        self.memberships = MembershipRepository(store)
        self.grants = GrantRepository(store)
        self.connectors = ConnectorRepository(store)
        self.bindings = SourceBindingRepository(store)
        self.quarantines = QuarantineRepository(store)
        self.jobs = IngestionJobRepository(store)
        self.objects = SourceObjectRepository(store)
        self.cross_tenant_grants = CrossTenantGrantRepository(store)
        self.policies = PolicyRepository(store)
        self.serial = SerialByKey()

    def now_ms(self) -> int:
        return self.engine.clock.now_ms()

    def publish(self, caller: Caller, type: str, properties: dict[str, Any]) -> None:
        """Announce a change on the ``enterprise`` topic, tagged with the caller's tenant
        (``GET /enterprise/events`` shows a tenant only its own)."""
        tenant = caller.tenant
        tagged = {**properties, "org_id": tenant.org_id, "workspace_id": tenant.workspace_id}
        if tenant.deployment_id:
            tagged["deployment_id"] = tenant.deployment_id
        self.engine.events.publish(type, tagged, topic=TOPIC)

    def turn(self, caller: Caller, kind: str, key: str) -> Any:
        """The serial turn for one stored record of the caller's tenant."""
        return self.serial.turn((*caller.tenant.key, kind, key))

    def status(self, caller: Caller) -> dict[str, Any]:
        return {
            "mode": "local" if caller.tenant.source == "local_implicit" else "explicit_tenant",
            "bridge_state": "storage_backed",
            "capabilities": list(STATUS_CAPABILITIES),
            "tenant_context": caller.tenant.to_wire(),
            "request_principal": caller.principal.to_wire(),
            "public_build": True,
            "contract_version": "v1",
            "notes": [
                "enterprise records are stored in the engine's store, scoped to the tenant",
                "hosted identity (SSO/OIDC, SCIM, invites, billing) is outside the runtime",
            ],
        }

    def settings_roots(self) -> Callable[[], list[Any]]:
        return lambda: list(self.engine.settings.enterprise.local_directory.allowed_roots)


__all__ = ["STATUS_CAPABILITIES", "TOPIC", "EnterpriseService"]
