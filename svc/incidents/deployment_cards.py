"""Deployment cards (reference §1.27): one card per deployed piece of agency (the monitor,
each automation, each workflow, each monitored source), with operator metadata and a
finding for every required field nobody filled in."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import bad_request

if TYPE_CHECKING:
    from .service import IncidentService

REQUIRED = (
    "intended_purpose",
    "business_owner",
    "accountable_team",
    "autonomy_level",
    "data_classification",
    "approval_protocol",
    "escalation_protocol",
    "review_cadence_days",
)
LISTS = (
    "allowed_actions",
    "prohibited_actions",
    "known_limitations",
    "residual_risks",
    "evidence_refs",
)
KEYS = (*REQUIRED, *LISTS, "next_reassessment_at_ms")
SELF_CARD = "svc:self_monitoring:incident_monitor"


def _metadata(raw: Any, field: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise bad_request("DEPLOYMENT_CARDS_INVALID", f"{field} must be an object", field=field)
    out = {}
    for key, value in raw.items():
        key = "intended_purpose" if key == "purpose" else key
        if key not in KEYS:
            continue  # unknown keys are not echoed: they could carry anything
        if key in LISTS and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise bad_request(
                "DEPLOYMENT_CARDS_INVALID",
                f"{field}.{key} must be a list of strings",
                field=f"{field}.{key}",
            )
        if key in ("review_cadence_days", "next_reassessment_at_ms") and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise bad_request(
                "DEPLOYMENT_CARDS_INVALID",
                f"{field}.{key} must be a non-negative integer",
                field=f"{field}.{key}",
            )
        out[key] = value
    return out


async def build_cards(service: IncidentService, body: Any) -> dict[str, Any]:
    from .posture import gather, posture_findings

    body = body if isinstance(body, Mapping) else {}
    defaults = _metadata(body.get("defaults"), "defaults")
    per_card_raw = body.get("metadata") or {}
    if not isinstance(per_card_raw, Mapping):
        raise bad_request(
            "DEPLOYMENT_CARDS_INVALID", "metadata must be an object", field="metadata"
        )
    per_card = {k: _metadata(v, f"metadata.{k}") for k, v in per_card_raw.items()}
    include_markdown = body.get("include_markdown", True) is not False
    inv, ctx = await gather(service)
    i = inv["inventory"]
    posture = posture_findings(inv, ctx)
    targets: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
        (
            SELF_CARD,
            "svc_self_monitoring",
            {"kind": "incident_monitor", "id": "incident_monitor", "name": "Incident monitor"},
            {
                "tools": [],
                "mcp_servers": [service.config.mcp_server] if service.config.mcp_server else [],
                "destinations": [d["destination_id"] for d in i["destinations"]],
                "routes": [r["route_id"] for r in i["routes"]],
            },
        ),
    ]
    agents_by: dict[str, list[dict[str, Any]]] = {}
    for a in i["agents"]:
        agents_by.setdefault(a["automation_id"], []).append(a)
    for spec in i["automation_specs"]:
        agents = agents_by.get(spec["automation_id"], [])
        tools = spec.get("allowed_tools") or sorted(
            {t for a in agents for t in a["tool_policy"]["allowlist"]}
        )
        servers = sorted({s for a in agents for s in a["mcp_policy"]["allowed_servers"]})
        targets.append(
            (
                f"automation:{spec['automation_id']}",
                "automation",
                {"kind": spec["kind"], "id": spec["automation_id"], "name": spec["name"]},
                {"tools": tools, "mcp_servers": servers, "destinations": [], "routes": []},
            )
        )
    for w in i["workflows"]:
        targets.append(
            (
                f"workflow:{w['workflow_id']}",
                "workflow",
                {"kind": "workflow", "id": w["workflow_id"], "name": w["name"]},
                {"tools": [], "mcp_servers": [], "destinations": [], "routes": []},
            )
        )
    for s in i["monitored_sources"]:
        card_id = f"monitored_source:{s['project_id']}:{s['source_id'] or 'project'}"
        targets.append(
            (
                card_id,
                "monitored_source",
                {"kind": s["kind"], "id": card_id, "name": s["project_id"]},
                {
                    "tools": [],
                    "mcp_servers": [],
                    "destinations": s["allowed_destination_ids"],
                    "routes": [],
                },
            )
        )
    cards, findings = [], []
    for card_id, kind, target, authority in targets:
        meta = {**defaults, **per_card.get(card_id, {})}
        linked = [
            f["finding_id"]
            for f in posture
            if any(target["id"] in str(o.get("id")) for o in f["affected_objects"])
        ]
        cards.append(
            {
                "card_id": card_id,
                "card_kind": kind,
                "target": target,
                "system_boundary": "svc_engine",
                "source_kind": "svc_monitor",
                "intended_purpose": meta.get("intended_purpose"),
                "business_owner": meta.get("business_owner"),
                "accountable_team": meta.get("accountable_team"),
                "autonomy_level": meta.get("autonomy_level"),
                "allowed_actions": meta.get("allowed_actions", []),
                "prohibited_actions": meta.get("prohibited_actions", []),
                "authority": {**authority, "data_sources": [], "inventory": "authority_inventory"},
                "data": {
                    "classification": meta.get("data_classification"),
                    "tenant_scope": inv["scope"]["tenant_context"],
                },
                "approval_and_escalation": {
                    "approval_protocol": meta.get("approval_protocol"),
                    "escalation_protocol": meta.get("escalation_protocol"),
                },
                "known_limitations": meta.get("known_limitations", []),
                "residual_risks": meta.get("residual_risks", []),
                "review": {
                    "review_cadence_days": meta.get("review_cadence_days"),
                    "next_reassessment_at_ms": meta.get("next_reassessment_at_ms"),
                },
                "linked_evidence": {
                    "inventory_refs": [f"{target['kind']}/{target['id']}"],
                    "operator_refs": meta.get("evidence_refs", []),
                    "posture_finding_refs": linked,
                    "incident_refs": [],
                    "evidence_pack_refs": [],
                },
            }
        )
        for field in REQUIRED:
            if meta.get(field) in (None, ""):
                findings.append(
                    {
                        "finding_id": f"deployment_card_missing:{card_id}:{field}",
                        "fingerprint": f"deployment_card:{card_id}:missing:{field}",
                        "rule_id": "deployment_card_required_field_missing",
                        "category": "production_governance",
                        "severity": "medium",
                        "title": f"Deployment card `{card_id}` lacks {field}",
                        "detail": f"{field} is required on every deployment card",
                        "affected_objects": [{"kind": "deployment_card", "id": card_id}],
                        "evidence_refs": [],
                        "recommendation": f"supply {field} in metadata",
                        "dry_run": True,
                    }
                )
    markdown = None
    if include_markdown:
        lines = ["# Deployment Cards", ""]
        for c in cards:
            lines += [
                f"## {c['card_id']}",
                "",
                f"- Kind: {c['card_kind']}",
                f"- Purpose: {c['intended_purpose'] or 'missing'}",
                f"- Owner: {c['business_owner'] or 'missing'}",
                f"- Autonomy: {c['autonomy_level'] or 'missing'}",
                "",
            ]
        markdown = "\n".join(lines)
    schedule = await service.security.reassessment.schedule()
    now = service.now_ms()
    body_out = {
        "schema_version": 1,
        "generated_at_ms": now,
        "scope": {
            "source": "incident_monitor_deployment_cards",
            "read_only": True,
            "dry_run": True,
            "mutates_external_systems": False,
            "tenant_context": inv["scope"]["tenant_context"],
            "raw_inventory_included": False,
            "raw_inventory_request_ignored": bool(body.get("include_raw_inventory")),
        },
        "card_policy": {
            "required_fields": list(REQUIRED),
            "metadata_card_ids": sorted(per_card),
            "supports_operator_metadata": True,
            "metadata_keys": list(KEYS),
        },
        "counts": {
            "cards": len(cards),
            "by_card_kind": dict(Counter(c["card_kind"] for c in cards)),
            "findings": len(findings),
            "missing_required_fields": len(findings),
            "posture_findings_linked": sum(
                len(c["linked_evidence"]["posture_finding_refs"]) for c in cards
            ),
        },
        "reassessment": {
            "source": "incident_monitor_continuous_reassessment",
            "overdue_scopes": sum(r["overdue"] for r in schedule),
            "schedule": schedule,
        },
        "cards": cards,
        "findings": findings,
        "markdown_export": markdown,
        "authority_inventory": {
            "schema_version": 1,
            "generated_at_ms": inv["generated_at_ms"],
            "counts": inv["counts"],
        },
        "sensitive_values": inv["sensitive_values"],
    }
    await service.ledger.record(
        "incident_monitor.deployment_cards.generated",
        {"counts": body_out["counts"]},
        domain="incident_monitor",
    )
    return body_out
