"""The incident monitor over HTTP (reference §1.1): config, intake, drafts, incidents,
posts, route preview, status, intake keys, log sources. Thin: parse, delegate, format.

``POST /incident-monitor/intake/report`` is the one route an intake key reaches (the
gate lets it through without the engine token; the service checks the key); every
other route refuses an intake key (svc/http/gate.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quart import Blueprint, request

from ...errors import NotFound
from ..auth import INTAKE_KEY_HEADER
from ..request import engine, json_body, query_int, query_str

if TYPE_CHECKING:
    from ...incidents import IncidentService

bp = Blueprint("incidents", __name__)
P = "/incident-monitor"


def incidents() -> IncidentService:
    service = engine().incidents
    if service is None:
        raise NotFound("the incident monitor is not enabled in this engine")
    return service


def _limit() -> int | None:
    return query_int("limit")


# ---------------------------------------------------------------------- config
@bp.get("/config/incident-monitor")
async def get_config() -> Any:
    return incidents().config_body()


@bp.patch("/config/incident-monitor")
async def patch_config() -> Any:
    return await incidents().replace_config(await json_body())


@bp.post(f"{P}/pause")
async def pause() -> Any:
    return await incidents().set_paused(True)


@bp.post(f"{P}/resume")
async def resume() -> Any:
    return await incidents().set_paused(False)


# ---------------------------------------------------------------------- status
@bp.get(f"{P}/status")
@bp.post(f"{P}/status/recompute")
async def status() -> Any:
    return await incidents().status()


@bp.get(f"{P}/debug")
async def debug() -> Any:
    from ...incidents.status import debug_body

    service = incidents()
    return debug_body(service, (await service.status())["status"])


@bp.post(f"{P}/route-preview")
async def route_preview() -> Any:
    from ...incidents.drafts import route_preview

    return await route_preview(incidents(), await json_body())


# ---------------------------------------------------------------------- intake
@bp.post(f"{P}/report")
async def report() -> Any:
    return await incidents().admin_report(await json_body())


@bp.post(f"{P}/intake/report")
async def intake_report() -> Any:
    key = request.headers.get(INTAKE_KEY_HEADER)
    if not key:
        scheme, _, credential = (request.headers.get("authorization") or "").partition(" ")
        key = credential.strip() if scheme.lower() == "bearer" else None
    return await incidents().intake_report(await json_body(), key)


@bp.get(f"{P}/intake/keys")
async def intake_keys() -> Any:
    from ...incidents.intake_keys import list_keys

    return await list_keys(incidents())


@bp.post(f"{P}/intake/keys")
async def create_intake_key() -> Any:
    from ...incidents.intake_keys import create_key

    return await create_key(incidents(), await json_body())


@bp.post(f"{P}/intake/keys/<key_id>/disable")
async def disable_intake_key(key_id: str) -> Any:
    from ...incidents.intake_keys import disable_key

    return await disable_key(incidents(), key_id)


# ---------------------------------------------------------------------- incidents
@bp.get(f"{P}/incidents")
async def list_incidents() -> Any:
    from ...incidents.drafts import list_incidents

    return await list_incidents(incidents(), _limit())


@bp.post(f"{P}/incidents/bulk-delete")
async def bulk_delete_incidents() -> Any:
    from ...incidents.drafts import bulk_ids

    deleted = await incidents().drafts.delete_incidents(bulk_ids(await json_body()))
    return {"ok": True, "deleted": deleted}


@bp.get(f"{P}/incidents/<incident_id>")
async def get_incident(incident_id: str) -> Any:
    from ...incidents.drafts import get_incident

    return {"incident": (await get_incident(incidents(), incident_id)).to_wire()}


@bp.delete(f"{P}/incidents/<incident_id>")
async def delete_incident(incident_id: str) -> Any:
    from ...incidents.drafts import get_incident

    await get_incident(incidents(), incident_id)
    return {"ok": True, "deleted": await incidents().drafts.delete_incidents([incident_id])}


@bp.post(f"{P}/incidents/<incident_id>/replay")
async def replay_incident(incident_id: str) -> Any:
    from ...incidents.triage import replay_incident

    return await replay_incident(incidents(), incident_id)


# ---------------------------------------------------------------------- drafts
@bp.get(f"{P}/drafts")
async def list_drafts() -> Any:
    from ...incidents.drafts import list_drafts

    return await list_drafts(incidents(), _limit())


@bp.post(f"{P}/drafts/bulk-delete")
async def bulk_delete_drafts() -> Any:
    from ...incidents.drafts import bulk_ids

    deleted = await incidents().drafts.delete_drafts(bulk_ids(await json_body()))
    return {"ok": True, "deleted": deleted}


@bp.get(f"{P}/drafts/<draft_id>")
async def get_draft(draft_id: str) -> Any:
    from ...incidents.drafts import get_draft

    return {"draft": (await get_draft(incidents(), draft_id)).to_wire()}


@bp.delete(f"{P}/drafts/<draft_id>")
async def delete_draft(draft_id: str) -> Any:
    from ...incidents.drafts import get_draft

    await get_draft(incidents(), draft_id)
    return {"ok": True, "deleted": await incidents().drafts.delete_drafts([draft_id])}


def _reason(body: Any) -> str | None:
    reason = body.get("reason") if isinstance(body, dict) else None
    return reason if isinstance(reason, str) else None


@bp.post(f"{P}/drafts/<draft_id>/approve")
async def approve_draft(draft_id: str) -> Any:
    from ...incidents.drafts import decide

    body = await json_body()
    return await decide(incidents(), draft_id, approve=True, reason=_reason(body))


@bp.post(f"{P}/drafts/<draft_id>/deny")
async def deny_draft(draft_id: str) -> Any:
    from ...incidents.drafts import decide

    body = await json_body()
    return await decide(incidents(), draft_id, approve=False, reason=_reason(body))


@bp.post(f"{P}/drafts/<draft_id>/triage-run")
async def triage_run(draft_id: str) -> Any:
    from ...incidents.triage import start_triage

    return await start_triage(incidents(), draft_id, manual=True)


@bp.post(f"{P}/drafts/<draft_id>/triage-summary")
async def triage_summary(draft_id: str) -> Any:
    from ...incidents.triage import triage_summary

    return await triage_summary(incidents(), draft_id, await json_body())


@bp.post(f"{P}/drafts/<draft_id>/issue-draft")
async def issue_draft(draft_id: str) -> Any:
    from ...incidents.triage import issue_draft

    return await issue_draft(incidents(), draft_id)


@bp.post(f"{P}/drafts/<draft_id>/publish")
async def publish_draft(draft_id: str) -> Any:
    body = await json_body()
    body = body if isinstance(body, dict) else {}
    ids: list[str] = []
    if isinstance(body.get("destination_id"), str) and body["destination_id"].strip():
        ids.append(body["destination_id"].strip())
    for value in body.get("destination_ids") or []:
        if isinstance(value, str) and value.strip() and value.strip() not in ids:
            ids.append(value.strip())
    return await incidents().publisher.publish(draft_id, ids, mode="manual")


@bp.post(f"{P}/drafts/<draft_id>/recheck-match")
async def recheck_match(draft_id: str) -> Any:
    from ...incidents.errors import IncidentError

    try:
        return await incidents().publisher.publish(draft_id, mode="recheck")
    except IncidentError as exc:
        if exc.code == "INCIDENT_MONITOR_DRAFT_PUBLISH_FAILED":
            exc.code = "INCIDENT_MONITOR_DRAFT_RECHECK_FAILED"  # type: ignore[misc]  # per instance
        raise


# ---------------------------------------------------------------------- posts
@bp.get(f"{P}/posts")
async def list_posts() -> Any:
    from ...incidents.drafts import list_posts

    return await list_posts(incidents(), _limit(), query_str("destination_id"))


@bp.post(f"{P}/posts/bulk-delete")
async def bulk_delete_posts() -> Any:
    from ...incidents.drafts import bulk_ids

    return {"ok": True, "deleted": await incidents().posts.delete(bulk_ids(await json_body()))}


@bp.delete(f"{P}/posts/<post_id>")
async def delete_post(post_id: str) -> Any:
    from ...incidents.errors import not_found

    deleted = await incidents().posts.delete([post_id])
    if not deleted:
        raise not_found("POST_NOT_FOUND", f"post `{post_id}` not found", post_id=post_id)
    return {"ok": True, "deleted": deleted}


# ---------------------------------------------------------------------- log sources
@bp.post(f"{P}/log-sources/<project_id>/<source_id>/reset-offset")
async def reset_offset(project_id: str, source_id: str) -> Any:
    from ...incidents.log_tailer import reset_offset

    return await reset_offset(incidents(), project_id, source_id)


@bp.post(f"{P}/log-sources/<project_id>/<source_id>/replay-latest")
async def replay_latest(project_id: str, source_id: str) -> Any:
    from ...incidents.log_tailer import replay_latest

    return await replay_latest(incidents(), project_id, source_id)
