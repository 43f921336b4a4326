"""Draft and incident operations: read, approve, deny, delete, route preview, recheck."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import bad_request, conflict, not_found
from .intake import normalize
from .readiness import destination_readiness
from .records import Draft, Incident
from .routing import build_context, match_routes
from .service import clamp_limit

if TYPE_CHECKING:
    from .service import IncidentService


async def get_draft(service: IncidentService, draft_id: str) -> Draft:
    draft = await service.drafts.draft(draft_id)
    if draft is None:
        raise not_found("DRAFT_NOT_FOUND", f"draft `{draft_id}` not found", draft_id=draft_id)
    return draft


async def get_incident(service: IncidentService, incident_id: str) -> Incident:
    incident = await service.drafts.incident(incident_id)
    if incident is None:
        raise not_found(
            "INCIDENT_NOT_FOUND", f"incident `{incident_id}` not found", incident_id=incident_id
        )
    return incident


async def list_drafts(service: IncidentService, limit: int | None) -> dict[str, Any]:
    drafts = await service.drafts.drafts(limit=clamp_limit(limit))
    return {"drafts": [d.to_wire() for d in drafts], "count": len(drafts)}


async def list_incidents(service: IncidentService, limit: int | None) -> dict[str, Any]:
    incidents = await service.drafts.incidents(limit=clamp_limit(limit))
    return {"incidents": [i.to_wire() for i in incidents], "count": len(incidents)}


async def list_posts(
    service: IncidentService, limit: int | None, destination_id: str | None
) -> dict[str, Any]:
    posts = await service.posts.page(limit=clamp_limit(limit), destination_id=destination_id)
    return {"posts": [p.to_wire() for p in posts], "count": len(posts)}


def bulk_ids(body: Any) -> Sequence[str] | None:
    """``{ids: [...]}`` or ``{all: true}`` (``None`` = all)."""
    body = body if isinstance(body, Mapping) else {}
    if body.get("all") is True:
        return None
    ids = body.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise bad_request("BULK_DELETE_INVALID", "give `ids` (a list of strings) or `all: true`")
    return ids


async def decide(
    service: IncidentService, draft_id: str, *, approve: bool, reason: str | None
) -> dict[str, Any]:
    async with service.serial.turn(draft_id):
        draft = await get_draft(service, draft_id)
        if draft.status != "approval_required":
            raise conflict(
                "DRAFT_NOT_PENDING_APPROVAL",
                f"draft `{draft_id}` is `{draft.status}`, not awaiting approval",
                draft_id=draft_id,
            )
        now = service.now_ms()
        detail = draft.text("detail") or ""
        if reason and reason.strip():
            from .redaction import redact_text

            note = redact_text(reason.strip()[:2000], "default")
            detail = f"{detail}\n\noperator_note: {note}" if detail else f"operator_note: {note}"
        if approve:
            draft = draft.evolve(
                status="draft_ready",
                github_status="draft_ready",
                approval_granted_at_ms=now,
                updated_at_ms=now,
                detail=detail,
            )
        else:
            draft = draft.evolve(status="denied", updated_at_ms=now, detail=detail)
        await service.drafts.save_draft(draft)
        # An approved failure is a known failure pattern from now on (reference §1.10.2):
        # later reports of it are suppressed instead of drafted again.
        pattern = await service.patterns.remember(draft, now_ms=now) if approve else None
    verb = "approved" if approve else "denied"
    service.publish_event(
        f"incident_monitor.draft.{verb}", {"draft_id": draft_id, "fingerprint": draft.fingerprint}
    )
    if not approve:
        return {"ok": True, "draft": draft.to_wire()}
    body: dict[str, Any] = {
        "ok": True,
        "draft": draft.to_wire(),
        "action": "approved",
        "failure_pattern_memory": pattern,
    }
    if service.config.enabled and not service.config.paused:
        from .errors import IncidentError

        try:
            result = await service.publisher.publish(draft_id, mode="auto")
        except IncidentError as exc:
            body["publish_error"] = exc.message
            body["outcomes"] = exc.extra.get("outcomes", [])
            refreshed = await service.drafts.draft(draft_id)
            body["draft"] = refreshed.to_wire() if refreshed else body["draft"]
        else:
            body.update(
                draft=result["draft"],
                action=result["action"],
                post=result.get("post"),
                posts=result.get("posts", []),
                outcomes=result.get("outcomes", []),
            )
    return body


async def route_preview(service: IncidentService, body: Any) -> dict[str, Any]:
    body = body if isinstance(body, Mapping) else {}
    config = service.config
    layers: list[Mapping[str, Any]] = []
    explicit = normalize(body)
    layers.append(explicit)
    report = body.get("report")
    if isinstance(report, Mapping):
        layers.append(normalize(report))
    trusted = False
    if isinstance(body.get("draft_id"), str):
        layers.append((await get_draft(service, body["draft_id"])).doc)
        trusted = True
    if isinstance(body.get("incident_id"), str):
        layers.append((await get_incident(service, body["incident_id"])).doc)
        trusted = True
    if not trusted:
        # a bare report or explicit fields may not claim a binding; the config supplies it
        for layer in layers:
            if isinstance(layer, dict):
                for key in (
                    "allowed_destination_ids",
                    "default_destination_ids",
                    "source_approval_policy",
                ):
                    layer.pop(key, None)
    context = build_context(config, layers, trusted=trusted)
    requested = [d for d in body.get("destination_ids") or [] if isinstance(d, str)]
    matches = match_routes(config, context, requested)
    winning = matches[0]
    readiness = {
        d.destination_id: destination_readiness(
            config, d, servers=service.server_view, environ=service.engine.settings.environ
        )
        for d in config.effective_destinations()
    }
    blocked: list[str] = []
    if not winning.destination_ids:
        blocked.append("No destination matched route preview")
    for destination_id in winning.destination_ids:
        if destination_id not in readiness:
            blocked.append(f"Destination `{destination_id}` is not configured")
            continue
        if (
            context.allowed_destination_ids
            and destination_id not in context.allowed_destination_ids
        ):
            blocked.append(f"Destination `{destination_id}` is not allowed by source binding")
        r = readiness[destination_id]
        if not r.ready:
            blocked.append(
                f"Destination `{destination_id}` is not ready: "
                + (", ".join(r.missing) or "readiness is false")
            )
    from .source_readiness import source_readiness

    states = {(s.project_id, s.source_id): s for s in await service.log_states.all_states()}
    sources = source_readiness(config, states, service.now_ms())
    project_id, source_id = context.get("project_id"), context.get("log_source_id")
    bound = [
        row
        for row in sources
        if project_id
        and row["project_id"].lower() == project_id
        and ((row["source_id"] or "").lower() == (source_id or ""))
    ]
    warnings = [w for row in bound for w in row["warnings"]]
    if config.safety_defaults.block_unready_sources and project_id:
        if not bound:
            blocked.append(
                f"Source `{project_id}` is not data-ready: "
                "no readiness evidence for the bound source"
            )
        for row in bound:
            if not row["ready"]:
                label = row["project_id"] + (f"/{row['source_id']}" if row["source_id"] else "")
                blocked.append(
                    f"Source `{label}` is not data-ready: "
                    + (", ".join(row["missing"]) or "source readiness is false")
                )
    return {
        "matches": [m.to_wire() for m in matches],
        "destinations": [
            {
                "destination_id": d.destination_id,
                "name": d.name,
                "kind": d.kind,
                "enabled": d.enabled,
                "require_approval": d.require_approval,
                "route_tags": list(d.route_tags),
            }
            for d in config.effective_destinations()
            if d.destination_id in winning.destination_ids
        ],
        "readiness": [readiness[d].to_wire() for d in winning.destination_ids if d in readiness],
        "source_readiness": bound,
        "source_readiness_warnings": warnings,
        "default_destination_ids": list(context.default_destination_ids)
        or config.effective_default_destination_ids(),
        "effective_destination_ids": list(winning.destination_ids),
        "approval_required": winning.approval_required,
        "blocked": bool(blocked),
        "blocked_reasons": blocked,
    }
