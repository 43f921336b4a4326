"""Who an enterprise request speaks for: its tenant context and its principal.

Local mode (the default) attaches tenant ``local/local`` (source
``local_implicit``) to every request. The principal's source is the
``x-svc-request-source`` header when present, else ``api_token`` when the
request presented a token, else ``local_control_panel``.

An engine behind a trusted proxy (``enterprise.trust_tenant_headers``) takes an
explicit tenant from ``x-svc-org-id`` / ``x-svc-workspace-id`` /
``x-svc-deployment-id`` and a *verified* principal from ``x-svc-actor-id`` with
its roles in ``x-svc-actor-roles`` (comma-separated): the stand-in for a signed
context assertion.

Admin rule: a verified principal is an admin when one of its roles (trimmed,
case-insensitive) is in :data:`ADMIN_ROLES`; an unverified one when its source
is in :data:`ADMIN_SOURCES`. So the holder of the engine token (or anyone on a
tokenless loopback engine) is the local admin, unless the request says it comes
from somewhere else (``x-svc-request-source: agent`` is refused).
"""

from __future__ import annotations

from typing import Any, Protocol

import attrs

from .errors import EnterpriseForbidden

LOCAL = "local"

ADMIN_ROLES = frozenset(
    {
        "admin",
        "owner",
        "org:admin",
        "organization:admin",
        "workspace:admin",
        "enterprise:admin",
        "reconfigure",
    }
)
ADMIN_SOURCES = frozenset({"api_token", "control_panel", "local_api_token", "local_control_panel"})


class Headers(Protocol):
    def get(self, key: str, /) -> str | None: ...


@attrs.frozen
class TenantContext:
    org_id: str = LOCAL
    workspace_id: str = LOCAL
    deployment_id: str | None = None
    actor_id: str | None = None
    source: str = "local_implicit"

    @property
    def key(self) -> tuple[str, str, str]:
        """The columns a stored record's tenant is matched on (no deployment: '')."""
        return (self.org_id, self.workspace_id, self.deployment_id or "")

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"org_id": self.org_id, "workspace_id": self.workspace_id}
        if self.deployment_id:
            wire["deployment_id"] = self.deployment_id
        if self.actor_id:
            wire["actor_id"] = self.actor_id
        wire["source"] = self.source
        return wire

    @classmethod
    def of_key(cls, key: tuple[str, str, str]) -> TenantContext:
        return cls(key[0], key[1], key[2] or None, source="explicit")


@attrs.frozen
class RequestPrincipal:
    source: str
    actor_id: str | None = None
    roles: frozenset[str] = frozenset()
    verified: bool = False

    @property
    def is_admin(self) -> bool:
        if self.verified:
            return any(r.strip().lower() in ADMIN_ROLES for r in self.roles)
        return self.source in ADMIN_SOURCES

    @property
    def is_human(self) -> bool:
        return self.source in ("control_panel", "local_control_panel") or self.verified

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {}
        if self.actor_id:
            wire["actor_id"] = self.actor_id
        wire["source"] = self.source
        return wire


@attrs.frozen
class Caller:
    tenant: TenantContext
    principal: RequestPrincipal

    def require_admin(self) -> None:
        if not self.principal.is_admin:
            raise EnterpriseForbidden(
                "enterprise admin access is required for this mutation",
                code="ENTERPRISE_ADMIN_REQUIRED",
            )

    def require_read(self) -> None:
        if not self.principal.is_admin:
            raise EnterpriseForbidden(
                "enterprise read access is required for this request",
                code="ENTERPRISE_READ_ACCESS_REQUIRED",
            )

    @property
    def created_by(self) -> dict[str, str]:
        return {"kind": "human_user", "id": self.principal.actor_id or self.principal.source}

    def base(self, message: str = "enterprise admin storage is configured") -> dict[str, Any]:
        """The object every successful response embeds (flattened)."""
        return {
            "tenant_context": self.tenant.to_wire(),
            "request_principal": self.principal.to_wire(),
            "bridge_state": "storage_backed",
            "status": "ok",
            "message": message,
        }


LOCAL_ADMIN = Caller(TenantContext(), RequestPrincipal("local_control_panel"))


def _names(value: str | None) -> frozenset[str]:
    return frozenset(v.strip() for v in (value or "").split(",") if v.strip())


def _value(headers: Headers, name: str) -> str | None:
    value = headers.get(name)
    return value.strip() if value and value.strip() else None


def caller_from_headers(
    headers: Headers, *, token_presented: bool, trust_tenant_headers: bool
) -> Caller:
    """The tenant and principal of one request (see the module docstring)."""
    source = _value(headers, "x-svc-request-source")
    if source is None:
        source = "api_token" if token_presented else "local_control_panel"
    source = source.lower()
    if trust_tenant_headers:
        org, workspace = _value(headers, "x-svc-org-id"), _value(headers, "x-svc-workspace-id")
        deployment = _value(headers, "x-svc-deployment-id")
        actor = _value(headers, "x-svc-actor-id")
        tenant = TenantContext(actor_id=actor)
        if org or workspace or deployment:
            tenant = TenantContext(
                org or LOCAL, workspace or LOCAL, deployment, actor_id=actor, source="explicit"
            )
        if actor:
            principal = RequestPrincipal(
                source, actor, roles=_names(_value(headers, "x-svc-actor-roles")), verified=True
            )
            return Caller(tenant, principal)
        return Caller(tenant, RequestPrincipal(source))
    actor = _value(headers, "x-svc-actor-id")
    return Caller(TenantContext(actor_id=actor), RequestPrincipal(source, actor))


__all__ = [
    "ADMIN_ROLES",
    "ADMIN_SOURCES",
    "LOCAL_ADMIN",
    "Caller",
    "RequestPrincipal",
    "TenantContext",
    "caller_from_headers",
]
