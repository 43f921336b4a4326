"""Who is asking, and in which tenant: scoping and authority for orchestrations and goals.

Every record belongs to a tenant ``(org_id, workspace_id, deployment_id)``; every read
filters by it, so a record of another tenant is reported as absent (404), never as
forbidden. In local single-tenant mode the tenant is ``local/local`` and the operator
owns everything.

A :class:`Principal` is the caller. Humans in the local tenant hold every authority.
A *verified* principal (one whose identity came from a trusted source, see
``svc.settings.goals_trust_tenant_headers``) must own what it mutates unless it is an
admin, and needs an explicit capability to decide handoffs or resolve waits. Agents
(``x-svc-agent-id`` over HTTP, or a tool called inside a session run) may start and move
goals they own but never decide handoffs or resolve waits: agents do not approve their
own work (SPEC §5.10).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from .errors import GoalForbidden, OrchestrationForbidden

LOCAL = "local"

ADMIN_ROLES = frozenset({"owner", "admin", "hosted:owner", "hosted:admin", "enterprise:admin"})
ADMIN_CAPABILITIES = frozenset({"hosted.admin", "orchestration.control", "orchestration.write"})
APPROVE = "orchestration.approve"
RESOLVE_WAIT = "orchestration.resolve_wait"

PrincipalKind = Literal["human_user", "agent"]


@attrs.frozen
class TenantContext:
    org_id: str = LOCAL
    workspace_id: str = LOCAL
    deployment_id: str | None = None
    source: Literal["local_implicit", "explicit"] = "local_implicit"

    @property
    def is_local(self) -> bool:
        return self.org_id == LOCAL and self.workspace_id == LOCAL and self.deployment_id is None

    @property
    def deployment_key(self) -> str:
        return self.deployment_id or ""

    @property
    def scope(self) -> str:
        return f"{self.org_id}:{self.workspace_id}:{self.deployment_key}"

    def key(self) -> tuple[str, str, str]:
        return (self.org_id, self.workspace_id, self.deployment_key)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"org_id": self.org_id, "workspace_id": self.workspace_id}
        if self.deployment_id is not None:
            wire["deployment_id"] = self.deployment_id
        wire["source"] = self.source
        return wire

    @classmethod
    def from_wire(cls, data: Mapping[str, Any] | None) -> TenantContext:
        if not data:
            return LOCAL_TENANT
        org = str(data.get("org_id") or LOCAL)
        workspace = str(data.get("workspace_id") or LOCAL)
        deployment = data.get("deployment_id") or None
        source: Literal["local_implicit", "explicit"] = (
            "local_implicit" if (org, workspace, deployment) == (LOCAL, LOCAL, None) else "explicit"
        )
        return cls(org, workspace, deployment, source)


LOCAL_TENANT = TenantContext()


@attrs.frozen
class Principal:
    """The caller of one request or tool call."""

    actor_id: str
    kind: PrincipalKind = "human_user"
    verified: bool = False
    """Identity from a trusted source; only verified principals are owner-checked."""
    roles: frozenset[str] = frozenset()
    capabilities: frozenset[str] = frozenset()

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"

    @property
    def is_admin(self) -> bool:
        return bool(self.roles & ADMIN_ROLES) or bool(self.capabilities & ADMIN_CAPABILITIES)

    def ref(self) -> dict[str, str]:
        """The PrincipalRef wire shape."""
        return {"kind": self.kind, "id": self.actor_id}


LOCAL_OPERATOR = Principal("local-operator")


@attrs.frozen
class Caller:
    """A principal acting in a tenant: what every service call carries."""

    tenant: TenantContext = LOCAL_TENANT
    principal: Principal = LOCAL_OPERATOR

    def owns(self, owner_id: str | None) -> bool:
        """Whether this caller may mutate a record created or started by ``owner_id``."""
        if self.principal.verified:
            return self.principal.is_admin or owner_id == self.principal.actor_id
        if self.principal.is_agent and not self.tenant.is_local:
            return owner_id == self.principal.actor_id
        # Local mode: the operator (and the agents it runs) own everything.
        return True

    def has_authority(self, capability: str) -> bool:
        """Decide handoffs (``orchestration.approve``) or resolve waits
        (``orchestration.resolve_wait``)."""
        principal = self.principal
        if principal.is_agent:
            return False
        if principal.verified:
            # An admin *role* satisfies this; admin capabilities do not (they govern writes).
            return capability in principal.capabilities or bool(principal.roles & ADMIN_ROLES)
        return self.tenant.is_local

    def require_orchestration_owner(self, created_by: str | None) -> None:
        if not self.owns(created_by):
            raise OrchestrationForbidden(
                "the authenticated principal does not own this orchestration",
                actor=self.principal.actor_id,
            )

    def require_goal_owner(self, started_by: str | None) -> None:
        if not self.owns(started_by):
            raise GoalForbidden("the authenticated principal does not own this goal")

    def require_authority(self, capability: str) -> None:
        if not self.has_authority(capability):
            raise GoalForbidden(f"authenticated principal lacks {capability} authority")


LOCAL_CALLER = Caller()


def owner_id_of(value: Any) -> str | None:
    """``metadata.created_by`` / ``started_by`` may be a string or a PrincipalRef."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        ident = value.get("id")
        return ident if isinstance(ident, str) else None
    return None


__all__ = [
    "APPROVE",
    "LOCAL_CALLER",
    "LOCAL_OPERATOR",
    "LOCAL_TENANT",
    "RESOLVE_WAIT",
    "Caller",
    "Principal",
    "TenantContext",
    "owner_id_of",
]
