"""Enterprise onboarding: ``/enterprise/...`` (docs/enterprise.md).

Every handler resolves the request's tenant and principal
(:func:`svc.enterprise.caller_from_headers`) and hands them to the domain,
which checks access and confines every read and write to the tenant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint, request

from ...events import Event, EventFilter
from ..auth import presented_token
from ..request import engine, json_body, object_body, query_bool, query_str
from ..sse import event_frames, resume_cursor, sse_response

if TYPE_CHECKING:
    from ...enterprise import Caller, EnterpriseService

bp = Blueprint("enterprise", __name__)


def service() -> EnterpriseService:
    from ...enterprise import enterprise_of

    return enterprise_of(engine())


def caller() -> Caller:
    from ...enterprise import caller_from_headers

    return caller_from_headers(
        request.headers,
        token_presented=presented_token(request.headers) is not None,
        trust_tenant_headers=engine().settings.enterprise.trust_tenant_headers,
    )


@bp.get("/enterprise/status")
async def status() -> Any:
    return service().status(caller())


@bp.get("/enterprise/readiness")
async def readiness() -> Any:
    from ...enterprise.readiness import readiness

    return await readiness(service(), caller())


@bp.post("/enterprise/onboarding-plans/preview")
async def preview() -> Any:
    from ...enterprise.preview import preview

    return await preview(service(), caller(), await object_body())


# ---------------------------------------------------------------------- governance
@bp.get("/enterprise/org-units")
async def org_units() -> Any:
    from ...enterprise.governance import list_org_units

    return await list_org_units(service(), caller())


@bp.post("/enterprise/org-units")
async def save_org_unit() -> Any:
    from ...enterprise.governance import save_org_unit

    return await save_org_unit(service(), caller(), await object_body())


@bp.get("/enterprise/org-unit-memberships")
async def memberships() -> Any:
    from ...enterprise.governance import list_memberships

    return await list_memberships(service(), caller())


@bp.post("/enterprise/org-unit-memberships")
async def save_membership() -> Any:
    from ...enterprise.governance import save_membership

    return await save_membership(service(), caller(), await object_body())


@bp.patch("/enterprise/org-unit-memberships/<membership_id>")
async def patch_membership(membership_id: str) -> Any:
    from ...enterprise.governance import patch_membership

    return await patch_membership(service(), caller(), membership_id, await object_body())


@bp.get("/enterprise/org-unit-access-grants")
async def grants() -> Any:
    from ...enterprise.governance import list_grants

    return await list_grants(service(), caller())


@bp.get("/enterprise/org-unit-access-grants/effective")
async def effective_grants() -> Any:
    from ...enterprise.governance import effective_grants

    return await effective_grants(
        service(), caller(), query_str("member_kind"), query_str("member_id")
    )


@bp.post("/enterprise/org-unit-access-grants")
async def save_grant() -> Any:
    from ...enterprise.governance import save_grant

    return await save_grant(service(), caller(), await object_body())


@bp.patch("/enterprise/org-unit-access-grants/<grant_id>")
async def patch_grant(grant_id: str) -> Any:
    from ...enterprise.governance import patch_grant

    return await patch_grant(service(), caller(), grant_id, await object_body())


# ---------------------------------------------------------------------- connectors
@bp.get("/enterprise/connector-providers")
async def connector_providers() -> Any:
    from ...enterprise.connectors import providers

    return providers(caller())


@bp.get("/enterprise/connectors")
async def connectors() -> Any:
    from ...enterprise.connectors import list_connectors

    return await list_connectors(service(), caller())


@bp.post("/enterprise/connectors")
async def save_connector() -> Any:
    from ...enterprise.connectors import save_connector

    return await save_connector(service(), caller(), await object_body())


@bp.patch("/enterprise/connectors/<connector_id>")
async def patch_connector(connector_id: str) -> Any:
    from ...enterprise.connectors import patch_connector

    return await patch_connector(service(), caller(), connector_id, await object_body())


@bp.post("/enterprise/connectors/<connector_id>/credential-refs")
async def add_credential_ref(connector_id: str) -> Any:
    from ...enterprise.connectors import add_credential_ref

    return await add_credential_ref(service(), caller(), connector_id, await object_body())


@bp.patch("/enterprise/connectors/<connector_id>/credential-refs/<credential_id>/rotate")
async def rotate_credential_ref(connector_id: str, credential_id: str) -> Any:
    from ...enterprise.connectors import rotate_credential_ref

    return await rotate_credential_ref(
        service(), caller(), connector_id, credential_id, await object_body()
    )


@bp.get("/enterprise/connectors/<connector_id>/impact")
async def connector_impact(connector_id: str) -> Any:
    from ...enterprise.review import connector_impact

    return await connector_impact(service(), caller(), connector_id)


# ---------------------------------------------------------------------- source bindings
@bp.get("/enterprise/source-bindings")
async def source_bindings() -> Any:
    from ...enterprise.connectors import list_bindings

    return await list_bindings(service(), caller())


@bp.post("/enterprise/source-bindings")
async def save_binding() -> Any:
    from ...enterprise.connectors import save_binding

    return await save_binding(service(), caller(), await object_body())


@bp.patch("/enterprise/source-bindings/<binding_id>")
async def patch_binding(binding_id: str) -> Any:
    from ...enterprise.connectors import patch_binding

    return await patch_binding(service(), caller(), binding_id, await object_body())


@bp.post("/enterprise/source-bindings/<binding_id>/preflight")
async def preflight(binding_id: str) -> Any:
    from ...enterprise.ingestion import preflight

    await json_body()  # an optional, empty JSON body
    return await preflight(service(), caller(), binding_id)


async def _import(binding_id: str, kind: str) -> Any:
    from ...enterprise.ingestion import start_import

    body = await object_body()
    wait = body.get("wait", True) is not False and query_bool("wait", default=True)
    reply = await start_import(service(), caller(), binding_id, kind=kind, wait=wait)
    return reply, 200 if wait else 202


@bp.post("/enterprise/source-bindings/<binding_id>/import")
async def import_binding(binding_id: str) -> Any:
    return await _import(binding_id, "import")


@bp.post("/enterprise/source-bindings/<binding_id>/reindex")
async def reindex_binding(binding_id: str) -> Any:
    return await _import(binding_id, "reindex")


@bp.get("/enterprise/source-bindings/<binding_id>/source-objects")
async def source_objects(binding_id: str) -> Any:
    from ...enterprise.source_objects import list_objects

    return await list_objects(service(), caller(), binding_id)


@bp.post("/enterprise/source-bindings/<binding_id>/source-objects/<object_id>/reindex")
async def reindex_source_object(binding_id: str, object_id: str) -> Any:
    from ...enterprise.source_objects import reindex_object

    await json_body()  # an optional, empty JSON body
    return await reindex_object(service(), caller(), binding_id, object_id)


@bp.delete("/enterprise/source-bindings/<binding_id>/source-objects/<object_id>")
async def delete_source_object(binding_id: str, object_id: str) -> Any:
    from ...enterprise.source_objects import delete_object

    return await delete_object(service(), caller(), binding_id, object_id)


@bp.patch("/enterprise/source-bindings/<binding_id>/source-objects/<object_id>/scope")
async def scope_source_object(binding_id: str, object_id: str) -> Any:
    from ...enterprise.source_objects import scope_object

    return await scope_object(service(), caller(), binding_id, object_id, await object_body())


@bp.get("/enterprise/ingestion-jobs")
async def ingestion_jobs() -> Any:
    from ...enterprise.ingestion import list_jobs

    return await list_jobs(service(), caller(), query_str("binding_id"))


@bp.get("/enterprise/ingestion-quarantines")
async def quarantines() -> Any:
    from ...enterprise.review import list_quarantines

    return await list_quarantines(
        service(), caller(), state=query_str("state"), binding_id=query_str("binding_id")
    )


@bp.patch("/enterprise/ingestion-quarantines/<quarantine_id>/review")
async def review_quarantine(quarantine_id: str) -> Any:
    from ...enterprise.review import review_quarantine

    return await review_quarantine(service(), caller(), quarantine_id, await object_body())


# ---------------------------------------------------------------------- cross-tenant grants
@bp.get("/enterprise/cross-tenant-grants")
async def cross_tenant_grants() -> Any:
    from ...enterprise.cross_tenant import list_grants

    return await list_grants(service(), caller())


@bp.post("/enterprise/cross-tenant-grants")
async def issue_cross_tenant_grant() -> Any:
    from ...enterprise.cross_tenant import create_grant

    return await create_grant(service(), caller(), await object_body())


@bp.get("/enterprise/cross-tenant-grants/inbound")
async def inbound_cross_tenant_grants() -> Any:
    from ...enterprise.cross_tenant import inbound

    return await inbound(
        service(), caller(), include_inactive=query_bool("include_inactive", default=False)
    )


@bp.get("/enterprise/cross-tenant-grants/revocations")
async def cross_tenant_revocations() -> Any:
    from ...enterprise.cross_tenant import revocations

    return await revocations(service(), caller())


@bp.get("/enterprise/cross-tenant-grants/<grant_id>")
async def cross_tenant_grant(grant_id: str) -> Any:
    from ...enterprise.cross_tenant import get_grant

    return await get_grant(service(), caller(), grant_id)


@bp.post("/enterprise/cross-tenant-grants/<grant_id>/revoke")
async def revoke_cross_tenant_grant(grant_id: str) -> Any:
    from ...enterprise.cross_tenant import revoke

    body = await json_body(default={})
    return await revoke(service(), caller(), grant_id, body if isinstance(body, dict) else {})


# ---------------------------------------------------------------------- policies
@bp.get("/enterprise/policies")
async def policies() -> Any:
    from ...enterprise.policies import list_policies

    return await list_policies(service(), caller())


@bp.post("/enterprise/policies")
async def save_policy() -> Any:
    from ...enterprise.policies import save_policy

    return await save_policy(service(), caller(), await object_body())


@bp.post("/enterprise/policies/evaluate")
async def evaluate_policies() -> Any:
    from ...enterprise.policies import evaluate

    return await evaluate(service(), caller(), await object_body())


@bp.get("/enterprise/policies/<policy_id>")
async def policy(policy_id: str) -> Any:
    from ...enterprise.policies import get_policy

    return await get_policy(service(), caller(), policy_id)


@bp.patch("/enterprise/policies/<policy_id>")
async def patch_policy(policy_id: str) -> Any:
    from ...enterprise.policies import patch_policy

    return await patch_policy(service(), caller(), policy_id, await object_body())


@bp.post("/enterprise/memory/search")
async def memory_search() -> Any:
    from ...enterprise.memory_access import search_memory

    return await search_memory(service(), caller(), await object_body())


@bp.get("/enterprise/events")
async def events() -> Any:
    """Enterprise events of the caller's tenant (ingestion progress, reviews, saves)."""
    tenant = caller().tenant
    job_id, binding_id = query_str("job_id"), query_str("binding_id")

    def mine(event: Event) -> bool:
        props = event.properties
        if (props.get("org_id"), props.get("workspace_id")) != (
            tenant.org_id,
            tenant.workspace_id,
        ) or props.get("deployment_id") != tenant.deployment_id:
            return False
        if job_id is not None and props.get("job_id") != job_id:
            return False
        return binding_id is None or props.get("binding_id") == binding_id

    body = event_frames(
        engine().events,
        EventFilter(topic="enterprise", predicate=mine),
        after_seq=resume_cursor(),
    )
    return sse_response(body)
