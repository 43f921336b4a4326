"""``POST /enterprise/onboarding-plans/preview``: what a plan would do; writes nothing.

Sections are evaluated in the order org_units, connectors, memberships, grants,
credential_refs, source_bindings, mcp_requirements; each registers the ids it
plans, so later items may reference earlier ones as well as stored records.
Blocking errors (``valid: false``): destructive actions, invalid ids, missing
references, raw credential values, tenant mismatches, the Google Drive policy,
and hosted prerequisites this runtime can check and finds unmet (a named MCP
server that is not connected or lacks a required tool; a hosted deployment
without an API token; several replicas on a store that is not PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from . import fields as f
from .connectors import GOOGLE_DRIVE, has_raw_value
from .errors import EnterpriseError, EnterpriseInvalid
from .governance import DEFAULT_TAXONOMY, compact_segment, default_grant_id, parse_grant_shape

if TYPE_CHECKING:
    from .service import EnterpriseService
    from .tenant import Caller

SECTIONS = (
    "org_units",
    "connectors",
    "memberships",
    "grants",
    "credential_refs",
    "source_bindings",
    "mcp_requirements",
)
REQUIRED_HUMAN_ACTIONS = [
    "private_control_plane_provisioning_complete",
    "operator_supplies_secret_refs_without_raw_values",
    "operator_connects_or_approves_required_mcp_servers",
    "operator_runs_preflight_import_and_quarantine_review_after_apply",
]
PRIVATE_PREREQUISITES = [
    "tenant_and_workspace_provisioned",
    "invites_and_user_lifecycle_complete",
    "sso_oidc_scim_billing_and_account_ownership_configured_privately",
]


class _Plan:
    def __init__(self, caller: Caller) -> None:
        self.caller = caller
        self.operations: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.units: set[str] = set()
        self.connectors: set[str] = set()
        self.credentials: set[str] = set()

    def error(self, code: str, path: str, message: str) -> None:
        self.errors.append({"code": code, "path": path, "message": message})

    def warn(self, code: str, path: str, message: str) -> None:
        self.warnings.append({"code": code, "path": path, "message": message})

    def op(self, kind: str, id: str, exists: bool) -> None:
        self.operations.append(
            {
                "kind": kind,
                "id": id,
                "action": "noop" if exists else "create",
                "status": "already_exists" if exists else "would_create",
            }
        )

    def valid_id(self, value: Any, code: str, path: str, what: str) -> str | None:
        try:
            return f.enterprise_id(value, what)
        except EnterpriseError:
            self.error(code, path, f"`{what}` is not a valid id")
            return None

    def valid_external(self, value: Any, code: str, path: str, what: str) -> str | None:
        try:
            return f.external_id(value, what)
        except EnterpriseError:
            self.error(code, path, f"`{what}` is not a valid external id")
            return None


def _items(body: Mapping[str, Any], section: str) -> list[Mapping[str, Any]]:
    value = body.get(section)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise EnterpriseInvalid(
            f"`{section}` must be a list of objects",
            code="ENTERPRISE_PREVIEW_BODY_INVALID",
            field=section,
        )
    return value


async def preview(
    svc: EnterpriseService, caller: Caller, body: Mapping[str, Any]
) -> dict[str, Any]:
    caller.require_read()
    plan = _Plan(caller)
    tenant = caller.tenant.key
    stored_units = {u.key for u in await svc.org_units.all(tenant)}
    stored_connectors = {c.connector_id: c for c in await svc.connectors.all(tenant)}
    stored_credentials = {
        f"{c.connector_id}/{r.credential_id}"
        for c in stored_connectors.values()
        for r in c.credential_refs
    }
    stored_memberships = {m.membership_id for m in await svc.memberships.all(tenant)}
    stored_grants = {g.grant_id for g in await svc.grants.all(tenant)}
    stored_bindings = {b.binding_id for b in await svc.bindings.all(tenant)}
    sections = {name: _items(body, name) for name in SECTIONS}

    def each(section: str, check: Callable[[str, Mapping[str, Any]], None]) -> None:
        for index, item in enumerate(sections[section]):
            path = f"{section}[{index}]"
            if f.is_destructive(item.get("action")):
                plan.error(
                    "ENTERPRISE_PREVIEW_DESTRUCTIVE_ACTION_NOT_ALLOWED",
                    path,
                    "destructive actions are not allowed in onboarding plans",
                )
                continue
            check(path, item)

    def org_unit(path: str, item: Mapping[str, Any]) -> None:
        unit = plan.valid_id(
            item.get("unit_id"), "ENTERPRISE_PREVIEW_INVALID_ORG_UNIT", path, "unit_id"
        )
        taxonomy = plan.valid_id(
            item.get("taxonomy_id") or DEFAULT_TAXONOMY,
            "ENTERPRISE_PREVIEW_INVALID_TAXONOMY",
            path,
            "taxonomy_id",
        )
        if unit is None or taxonomy is None:
            return
        key = f"{taxonomy}/{unit}"
        name = item.get("display_name")
        if not isinstance(name, str) or not name.strip():
            plan.warn("ENTERPRISE_PREVIEW_ORG_UNIT_LABEL_MISSING", path, "the unit has no label")
        plan.op("org_unit", key, key in stored_units)
        plan.units.add(key)

    def unit_ref(path: str, item: Mapping[str, Any]) -> tuple[str, str] | None:
        unit = plan.valid_id(
            item.get("unit_id"), "ENTERPRISE_PREVIEW_INVALID_ORG_UNIT", path, "unit_id"
        )
        taxonomy = plan.valid_id(
            item.get("taxonomy_id") or DEFAULT_TAXONOMY,
            "ENTERPRISE_PREVIEW_INVALID_TAXONOMY",
            path,
            "taxonomy_id",
        )
        if unit is None or taxonomy is None:
            return None
        key = f"{taxonomy}/{unit}"
        if key not in stored_units and key not in plan.units:
            plan.error(
                "ENTERPRISE_PREVIEW_ORG_UNIT_MISSING",
                path,
                f"org unit `{key}` must exist or be included in this plan",
            )
            return None
        return taxonomy, unit

    def connector(path: str, item: Mapping[str, Any]) -> None:
        cid = plan.valid_id(
            item.get("connector_id"), "ENTERPRISE_PREVIEW_INVALID_CONNECTOR", path, "connector_id"
        )
        provider = plan.valid_id(
            item.get("provider"), "ENTERPRISE_PREVIEW_INVALID_PROVIDER", path, "provider"
        )
        if has_raw_value(item):
            plan.error(
                "ENTERPRISE_CONNECTOR_CREDENTIAL_VALUE_NOT_ALLOWED",
                path,
                "raw credential values must stay out of runtime onboarding plans",
            )
        if cid is None or provider is None:
            return
        plan.op("connector", cid, cid in stored_connectors)
        plan.connectors.add(cid)

    def connector_ref(path: str, value: Any) -> str | None:
        cid = plan.valid_id(value, "ENTERPRISE_PREVIEW_INVALID_CONNECTOR", path, "connector_id")
        if cid is None:
            return None
        if cid not in stored_connectors and cid not in plan.connectors:
            plan.error(
                "ENTERPRISE_PREVIEW_CONNECTOR_MISSING",
                path,
                f"connector `{cid}` must exist or be included in this plan",
            )
            return None
        return cid

    def membership(path: str, item: Mapping[str, Any]) -> None:
        unit = unit_ref(path, item)
        member = plan.valid_external(
            item.get("member_id"), "ENTERPRISE_PREVIEW_INVALID_MEMBER", path, "member_id"
        )
        if unit is None or member is None:
            return
        mid = item.get("membership_id") or (
            f"membership-{unit[0]}-{unit[1]}-{compact_segment(member).lower()}"
        )
        checked = plan.valid_id(mid, "ENTERPRISE_PREVIEW_INVALID_MEMBERSHIP", path, "membership_id")
        if checked is not None:
            plan.op("org_unit_membership", checked, checked in stored_memberships)

    def grant(path: str, raw: Mapping[str, Any]) -> None:
        item = parse_grant_shape(raw)
        unit = unit_ref(path, item)
        resource = plan.valid_external(
            item.get("resource_id"), "ENTERPRISE_PREVIEW_INVALID_RESOURCE", path, "resource_id"
        )
        if item.get("project_id") is not None:
            plan.valid_id(
                item.get("project_id"), "ENTERPRISE_PREVIEW_INVALID_PROJECT", path, "project_id"
            )
        if not isinstance(item.get("resource_kind"), str):
            plan.error("ENTERPRISE_PREVIEW_INVALID_RESOURCE", path, "`resource_kind` is required")
        classes = item.get("data_classes") or []
        permissions = item.get("permissions") or []
        if not classes or "admin" in permissions:
            plan.warn(
                "ENTERPRISE_PREVIEW_BROAD_GRANT", path, "the grant covers every data class or admin"
            )
        if item.get("effect") == "deny":
            plan.warn("ENTERPRISE_PREVIEW_DENY_GRANT", path, "the grant denies access")
        if item.get("tool_patterns"):
            plan.warn("ENTERPRISE_PREVIEW_TOOL_GRANT", path, "the grant names tool patterns")
        if unit is None or resource is None:
            return
        gid = item.get("grant_id") or default_grant_id(unit[0], unit[1], resource)
        checked = plan.valid_id(gid, "ENTERPRISE_PREVIEW_INVALID_GRANT", path, "grant_id")
        if checked is not None:
            plan.op("org_unit_access_grant", checked, checked in stored_grants)

    def credential(path: str, item: Mapping[str, Any]) -> None:
        cid = connector_ref(path, item.get("connector_id"))
        credential_id = plan.valid_id(
            item.get("credential_id"),
            "ENTERPRISE_PREVIEW_INVALID_CREDENTIAL",
            path,
            "credential_id",
        )
        if has_raw_value(item):
            plan.error(
                "ENTERPRISE_CONNECTOR_CREDENTIAL_VALUE_NOT_ALLOWED",
                path,
                "raw credential values must stay out of runtime onboarding plans",
            )
        secret = item.get("secret_ref")
        tenant_ok = (
            isinstance(secret, dict)
            and secret.get("org_id") == caller.tenant.org_id
            and secret.get("workspace_id") == caller.tenant.workspace_id
            and isinstance(secret.get("name"), str)
            and bool(secret["name"].strip())
        )
        if tenant_ok and isinstance(secret, dict):
            try:
                f.enterprise_id(secret.get("provider"), "provider")
                f.external_id(secret.get("secret_id"), "secret_id")
            except EnterpriseError:
                tenant_ok = False
        if not tenant_ok:
            plan.error(
                "ENTERPRISE_CONNECTOR_CREDENTIAL_TENANT_MISMATCH",
                path,
                "the secret reference must name this tenant, a provider, a secret id and a name",
            )
        bound = item.get("source_bound_resource")
        if isinstance(bound, dict) and _foreign(caller, bound):
            plan.error(
                "ENTERPRISE_SOURCE_BINDING_RESOURCE_TENANT_MISMATCH",
                path,
                "the source-bound resource belongs to another tenant",
            )
        if cid is None or credential_id is None:
            return
        key = f"{cid}/{credential_id}"
        plan.op("connector_credential_ref", key, key in stored_credentials)
        plan.credentials.add(key)

    def binding(path: str, item: Mapping[str, Any]) -> None:
        bid = plan.valid_id(
            item.get("binding_id"), "ENTERPRISE_PREVIEW_INVALID_SOURCE_BINDING", path, "binding_id"
        )
        cid = connector_ref(path, item.get("connector_id"))
        source_type = plan.valid_id(
            item.get("source_type"), "ENTERPRISE_PREVIEW_INVALID_SOURCE", path, "source_type"
        )
        plan.valid_external(
            item.get("native_source_id"),
            "ENTERPRISE_PREVIEW_INVALID_SOURCE",
            path,
            "native_source_id",
        )
        if has_raw_value(item):
            plan.error(
                "ENTERPRISE_CONNECTOR_CREDENTIAL_VALUE_NOT_ALLOWED",
                path,
                "raw credential values must stay out of runtime onboarding plans",
            )
        ref = item.get("resource_ref")
        if isinstance(ref, dict) and _foreign(caller, ref):
            plan.error(
                "ENTERPRISE_SOURCE_BINDING_RESOURCE_TENANT_MISMATCH",
                path,
                "the binding's resource belongs to another tenant",
            )
        policy = (
            item.get("ingestion_policy") if isinstance(item.get("ingestion_policy"), dict) else {}
        )
        assert isinstance(policy, dict)
        if GOOGLE_DRIVE in (item.get("connector_id"), source_type) and (
            source_type != GOOGLE_DRIVE
            or (policy.get("allow_indexing", True) and not policy.get("allow_prompt_context", True))
        ):
            plan.error(
                "ENTERPRISE_PREVIEW_GOOGLE_DRIVE_POLICY_INVALID",
                path,
                "Google Drive bindings need source_type google_drive, and indexing needs the "
                "prompt-context policy",
            )
        if item.get("state", "enabled") != "enabled":
            plan.warn(
                "ENTERPRISE_PREVIEW_SOURCE_BINDING_NOT_ENABLED", path, "the binding is not enabled"
            )
        credential_ref = item.get("credential_ref_id")
        if not credential_ref:
            plan.warn(
                "ENTERPRISE_PREVIEW_CREDENTIAL_REF_MISSING", path, "the binding names no credential"
            )
        elif cid is not None:
            key = f"{cid}/{credential_ref}"
            if key not in stored_credentials and key not in plan.credentials:
                plan.error(
                    "ENTERPRISE_PREVIEW_CREDENTIAL_MISSING",
                    path,
                    f"credential `{key}` must exist or be included in this plan",
                )
        if bid is not None:
            plan.op("source_binding", bid, bid in stored_bindings)

    def mcp_requirement(path: str, item: Mapping[str, Any]) -> None:
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            plan.error("ENTERPRISE_PREVIEW_INVALID_MCP", path, "`name` is required")
            return
        tools = item.get("required_tools") or []
        if not tools:
            plan.warn("ENTERPRISE_PREVIEW_MCP_TOOLS_MISSING", path, "no required tools are named")
        plan.operations.append(
            {
                "kind": "mcp_requirement",
                "id": name,
                "action": "operator_connect_or_verify",
                "status": "requires_human_action",
            }
        )
        _check_mcp(svc, plan, path, name.strip(), [t for t in tools if isinstance(t, str)])

    each("org_units", org_unit)
    each("connectors", connector)
    each("memberships", membership)
    each("grants", grant)
    each("credential_refs", credential)
    each("source_bindings", binding)
    each("mcp_requirements", mcp_requirement)
    prerequisites = _hosted_prerequisites(svc, plan, body)
    return {
        **caller.base(),
        "valid": not plan.errors,
        "operations": plan.operations,
        "warnings": plan.warnings,
        "blocking_errors": plan.errors,
        "hosted_prerequisites": prerequisites,
        "required_human_actions": list(REQUIRED_HUMAN_ACTIONS),
        "private_control_plane_prerequisites": list(PRIVATE_PREREQUISITES),
    }


def _foreign(caller: Caller, ref: Mapping[str, Any]) -> bool:
    org, workspace = ref.get("organization_id"), ref.get("workspace_id")
    return (org is not None and org != caller.tenant.org_id) or (
        workspace is not None and workspace != caller.tenant.workspace_id
    )


def _check_mcp(svc: EnterpriseService, plan: _Plan, path: str, name: str, tools: list[str]) -> None:
    mcp = svc.engine.mcp
    snapshot = mcp.snapshot(name) if mcp is not None else None
    if snapshot is None or not snapshot.usable:
        plan.error(
            "ENTERPRISE_PREVIEW_MCP_SERVER_NOT_CONNECTED",
            path,
            f"MCP server `{name}` must be configured, enabled and connected",
        )
        return
    available = {t.tool_name for t in snapshot.registered_tools()}
    missing = [t for t in tools if t not in available]
    if missing:
        plan.error(
            "ENTERPRISE_PREVIEW_MCP_TOOLS_UNAVAILABLE",
            path,
            f"MCP server `{name}` does not offer: {', '.join(missing)}",
        )


def _hosted_prerequisites(
    svc: EnterpriseService, plan: _Plan, body: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Prerequisites of the declared deployment this runtime can check, checked."""
    deployment = body.get("deployment") if isinstance(body.get("deployment"), dict) else {}
    assert isinstance(deployment, dict)
    hosted = deployment.get("mode") == "hosted"
    replicas = deployment.get("replicas", 1)
    replicas = replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1
    token = svc.engine.settings.token is not None
    store_kind = svc.engine.store.kind
    found: list[dict[str, Any]] = [
        {
            "id": "api_token_configured",
            "status": "met" if token else ("unmet" if hosted else "not_required"),
            "detail": "the engine requires an API token"
            if token
            else "the engine has no API token",
        },
        {
            "id": "shared_store_for_replicas",
            "status": "met" if replicas <= 1 or store_kind == "postgresql" else "unmet",
            "detail": f"{replicas} replica(s) declared; the store is {store_kind}",
        },
    ]
    if hosted and not token:
        plan.error(
            "ENTERPRISE_PREVIEW_API_TOKEN_REQUIRED",
            "deployment",
            "a hosted deployment needs an API token (SVC_API_TOKEN)",
        )
    elif not token:
        plan.warn(
            "ENTERPRISE_PREVIEW_API_TOKEN_MISSING", "deployment", "the engine has no API token"
        )
    if replicas > 1 and store_kind != "postgresql":
        plan.error(
            "ENTERPRISE_PREVIEW_POSTGRESQL_REQUIRED",
            "deployment.replicas",
            "several replicas need a shared PostgreSQL store",
        )
    return found


__all__ = ["PRIVATE_PREREQUISITES", "REQUIRED_HUMAN_ACTIONS", "SECTIONS", "preview"]
