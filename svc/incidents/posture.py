"""Posture checks and assessment probes (reference §1.25), dry-run over the inventory.

Each finding carries a stable ``fingerprint`` (SHA-256 over rule, category, severity and
the affected ids), so the same gap found twice is the same finding, which is what
continuous reassessment compares.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import bad_request

if TYPE_CHECKING:
    from .service import IncidentService

SEVERITY_RANK = {"critical": 4, "high": 3, "medium": 2, "low": 1}
RULES: dict[str, tuple[str, str]] = {
    "high_risk_tool_without_approval": ("missing_approval", "high"),
    "mcp_server_without_tool_allowlist": ("mcp_allowlist_gap", "high"),
    "broad_source_destination_scope": ("scoped_intake_gap", "medium"),
    "missing_tenant_context": ("tenant_context_gap", "high"),
    "external_destination_without_approval": ("unsafe_destination", "medium"),
    "unready_destination_fail_open": ("unsafe_destination", "medium"),
    "external_action_missing_receipt": ("audit_gap", "medium"),
    "recurring_denied_action": ("recurrence_gap", "medium"),
    "source_readiness_failed": ("source_readiness", "medium"),
}
PROBES = (
    "approval_required_tool_policy",
    "route_preview_high_risk_approval",
    "destination_readiness_fail_closed",
    "scoped_intake_restriction",
    "mcp_tool_allowlist",
    "webhook_url_policy",
)
HIGH_RISK_TOOLS = frozenset(
    {"*", "bash", "shell", "write", "edit", "apply_patch", "webfetch", "delete", "mcp.*"}
)
EXTERNAL_KINDS = frozenset({"github_issue", "linear_issue", "webhook", "mcp_tool"})
RECURRING_DENIALS = 3
MODES = ("dry_run", "enabled", "disabled")


def sha256_hex(parts: Sequence[str]) -> str:
    return hashlib.sha256(b"".join(p.encode() + b"\x00" for p in parts)).hexdigest()


def risk_of(severity: str) -> str:
    return (
        "high" if severity in ("critical", "high") else severity if severity == "medium" else "low"
    )


def finding(
    rule_id: str, title: str, detail: str, affected: list[dict[str, Any]], recommendation: str
) -> dict[str, Any]:
    category, severity = RULES[rule_id]
    ids = "|".join(f"{a['kind']}:{a['id']}" for a in affected)
    digest = sha256_hex([rule_id, category, severity, ids])
    risk = risk_of(severity)
    tags = ["security_posture", category]
    return {
        "finding_id": "bpf_" + digest[:16],
        "fingerprint": "sha256:" + digest,
        "rule_id": rule_id,
        "category": category,
        "severity": severity,
        "title": title,
        "detail": detail,
        "affected_objects": affected,
        "evidence_refs": [
            {"kind": "authority_inventory", "path": f"{a['kind']}/{a['id']}"} for a in affected
        ],
        "recommendation": recommendation,
        "route_suggestion": {
            "route_tags": tags,
            "risk_level": risk,
            "risk_category": category,
            "expected_destination": "security_review",
        },
        "destination_suggestion": {
            "kind": "linear_issue",
            "require_approval": True,
            "idempotency_key": "finding.fingerprint",
            "receipt_required": True,
        },
        "incident_draft_suggestion": {
            "source": "security_posture",
            "event_type": "security.posture.finding",
            "title": title,
            "fingerprint": "sha256:" + digest,
            "detail": detail,
            "risk_level": risk,
            "risk_category": category,
            "confidence": "high",
            "route_tags": tags,
            "excerpt": detail[:280],
        },
        "dry_run": True,
    }


def _risky(tools: Sequence[str]) -> list[str]:
    return sorted({t for t in tools if t.strip().lower() in HIGH_RISK_TOOLS})


def posture_findings(inv: Mapping[str, Any], ctx: Mapping[str, Any]) -> list[dict[str, Any]]:
    """All nine rules over an authority inventory body and a little context."""
    out: list[dict[str, Any]] = []
    i = inv["inventory"]
    for spec in i["automation_specs"]:
        if spec["kind"] == "routine":
            risky = _risky(spec.get("allowed_tools") or [])
            if risky and not spec.get("requires_approval"):
                out.append(
                    finding(
                        "high_risk_tool_without_approval",
                        f"Routine `{spec['automation_id']}` may use {', '.join(risky)} unapproved",
                        "the routine allows high-risk tools and does not require approval",
                        [{"kind": "routine", "id": spec["automation_id"]}],
                        "require approval for the routine or drop the high-risk tools",
                    )
                )
    for agent in i["agents"]:
        risky = _risky(agent["tool_policy"]["allowlist"])
        risky = [t for t in risky if t not in agent["tool_policy"]["denylist"]]
        if risky:
            ident = f"{agent['automation_id']}/{agent['agent_id']}"
            out.append(
                finding(
                    "high_risk_tool_without_approval",
                    f"Agent `{ident}` may use {', '.join(risky)} without approval",
                    "the agent's tool allowlist holds high-risk tools",
                    [{"kind": "agent", "id": ident}],
                    "narrow the allowlist or route the tools through a permission ask",
                )
            )
    for server in i["mcp"]["servers"]:
        if server["enabled"] and server["tool_allowlist"] is None:
            out.append(
                finding(
                    "mcp_server_without_tool_allowlist",
                    f"MCP server `{server['name']}` exposes every tool",
                    "no allowed_tools list is set on the connector",
                    [{"kind": "mcp_server", "id": server["name"]}],
                    "set allowed_tools on the connector",
                )
            )
    destinations = i["destinations"]
    for src in i["monitored_sources"]:
        label = src["project_id"] + (f"/{src['source_id']}" if src["source_id"] else "")
        if src["enabled"] and not src["allowed_destination_ids"] and len(destinations) > 1:
            out.append(
                finding(
                    "broad_source_destination_scope",
                    f"Source `{label}` may publish to every destination",
                    "no allowed_destination_ids bind the source",
                    [{"kind": "monitored_source", "id": label}],
                    "bind the source to the destinations it needs",
                )
            )
        if src["enabled"] and (not src["tenant_id"] or not src["workspace_id"]):
            out.append(
                finding(
                    "missing_tenant_context",
                    f"Source `{label}` has no tenant or workspace context",
                    "tenant_id and workspace_id are not both set",
                    [{"kind": "monitored_source", "id": label}],
                    "set tenant_id and workspace_id on the project or source",
                )
            )
    for d in destinations:
        if d["enabled"] and d["kind"] in EXTERNAL_KINDS and not d["require_approval"]:
            out.append(
                finding(
                    "external_destination_without_approval",
                    f"External destination `{d['destination_id']}` publishes without approval",
                    f"a {d['kind']} destination with require_approval false",
                    [{"kind": "destination", "id": d["destination_id"]}],
                    "set require_approval on the destination or an always-approve route",
                )
            )
    unready = [r for r in ctx["readiness"] if r["enabled"] and not r["ready"]]
    if not ctx["block_unready_destinations"] and unready:
        out.append(
            finding(
                "unready_destination_fail_open",
                "Unready destinations are not blocked",
                "safety_defaults.block_unready_destinations is false and some destinations are "
                "not ready: " + ", ".join(r["destination_id"] for r in unready),
                [{"kind": "destination", "id": r["destination_id"]} for r in unready],
                "turn block_unready_destinations back on",
            )
        )
    missing = [
        p
        for p in ctx["posts"]
        if p.get("status") == "posted" and not (p.get("external_id") or p.get("external_url"))
    ]
    if missing:
        out.append(
            finding(
                "external_action_missing_receipt",
                f"{len(missing)} deliveries have no external receipt",
                "posted deliveries without an external id or URL",
                [{"kind": "post", "id": str(p.get("post_id"))} for p in missing[:20]],
                "check the destinations' adapters return a receipt",
            )
        )
    denials = Counter(
        (d["domain"], d["subject"]) for d in ctx["decisions"] if d["effect"] == "deny"
    )
    for (domain, subject), count in sorted(denials.items()):
        if count >= RECURRING_DENIALS:
            out.append(
                finding(
                    "recurring_denied_action",
                    f"`{subject}` was denied {count} times ({domain})",
                    "the same action keeps being denied; the agent keeps asking",
                    [{"kind": "policy_subject", "id": f"{domain}:{subject}"}],
                    "review the agent's instructions or escalate to a human",
                )
            )
    for row in ctx["source_readiness"]:
        if row.get("enabled", True) and not row["ready"]:
            label = row["project_id"] + (f"/{row['source_id']}" if row["source_id"] else "")
            out.append(
                finding(
                    "source_readiness_failed",
                    f"Source `{label}` is not data-ready",
                    "missing: " + ", ".join(row.get("missing") or []),
                    [{"kind": "monitored_source", "id": label}],
                    "complete the source's data_readiness",
                )
            )
    return out


async def gather(service: IncidentService) -> tuple[dict[str, Any], dict[str, Any]]:
    """(authority inventory, context) the rules and probes read."""
    from .authority_inventory import build_inventory
    from .source_readiness import source_readiness

    inv = await build_inventory(service)
    states = {(s.project_id, s.source_id): s for s in await service.log_states.all_states()}
    ctx = {
        "readiness": [r.to_wire() for r in service.readiness()],
        "block_unready_destinations": service.config.safety_defaults.block_unready_destinations,
        "posts": [p.doc for p in await service.posts.page(limit=200)],
        "decisions": [d.to_wire() for d in await service.decisions.window(limit=500)],
        "source_readiness": source_readiness(service.config, states, service.now_ms()),
    }
    return inv, ctx


def _csv(value: Any, field: str, known: Sequence[str]) -> list[str] | None:
    if value is None or value == "":
        return None
    items = value if isinstance(value, list) else str(value).split(",")
    names = [str(v).strip() for v in items if str(v).strip()]
    for name in names:
        if name not in known:
            raise bad_request("POSTURE_INVALID", f"unknown rule `{name}`", field=field)
    return names


def select(findings: list[dict[str, Any]], query: Mapping[str, Any]) -> list[dict[str, Any]]:
    rules = _csv(query.get("rules"), "rules", list(RULES))
    disabled = _csv(query.get("disabled_rules"), "disabled_rules", list(RULES)) or []
    floor = str(query.get("min_severity") or "low").lower()
    if floor not in SEVERITY_RANK:
        raise bad_request(
            "POSTURE_INVALID",
            "min_severity must be critical, high, medium or low",
            field="min_severity",
        )
    return [
        f
        for f in findings
        if (rules is None or f["rule_id"] in rules)
        and f["rule_id"] not in disabled
        and SEVERITY_RANK[f["severity"]] >= SEVERITY_RANK[floor]
    ]


def mode_of(value: Any) -> str:
    mode = str(value or "dry_run")
    if mode not in MODES:
        raise bad_request(
            "POSTURE_INVALID", "mode must be dry_run, enabled or disabled", field="mode"
        )
    return mode


async def posture_checks(service: IncidentService, query: Mapping[str, Any]) -> dict[str, Any]:
    mode = mode_of(query.get("mode"))
    inv, ctx = await gather(service)
    found = [] if mode == "disabled" else select(posture_findings(inv, ctx), query)
    return {
        "schema_version": 1,
        "generated_at_ms": service.now_ms(),
        "scope": {
            "source": "incident_monitor_posture_checks",
            "read_only": True,
            "dry_run": True,
            "mutates_external_systems": False,
            "tenant_context": inv["scope"]["tenant_context"],
        },
        "mode": mode,
        "rules": [{"rule_id": r, "category": c, "severity": s} for r, (c, s) in RULES.items()],
        "counts": {
            "findings": len(found),
            "by_severity": dict(Counter(f["severity"] for f in found)),
        },
        "findings": found,
    }


async def _probe(
    service: IncidentService,
    probe_id: str,
    inv: Mapping[str, Any],
    ctx: Mapping[str, Any],
    findings: list[dict[str, Any]],
) -> dict[str, Any]:
    from .drafts import route_preview
    from .webhook_policy import static_problems

    blocked = False
    rule = None
    if probe_id == "approval_required_tool_policy":
        rule = "high_risk_tool_without_approval"
        target, expected = "tool policies", "high-risk tools need approval"
        ok = not any(f["rule_id"] == rule for f in findings)
    elif probe_id == "route_preview_high_risk_approval":
        target, expected = "route preview", "a high-risk report requires approval"
        preview = await route_preview(
            service, {"event_type": "security.probe", "risk_level": "high", "title": "probe"}
        )
        blocked = not preview["effective_destination_ids"]
        ok = bool(preview["approval_required"])
    elif probe_id == "destination_readiness_fail_closed":
        target, expected = "safety_defaults", "unready destinations are blocked"
        ok = bool(ctx["block_unready_destinations"])
    elif probe_id == "scoped_intake_restriction":
        target, expected = "intake keys", "intake keys only report"
        keys = inv["inventory"]["scoped_intake_keys"]
        ok = all(k["scopes"] == ["incident_monitor:report"] for k in keys if k["enabled"])
    elif probe_id == "mcp_tool_allowlist":
        rule = "mcp_server_without_tool_allowlist"
        target, expected = "mcp servers", "every enabled server has a tool allowlist"
        ok = not any(f["rule_id"] == rule for f in findings)
    else:
        target, expected = "webhook destinations", "webhook URLs pass the outbound policy"
        environ = service.engine.settings.environ
        hooks = [d for d in service.config.effective_destinations() if d.kind == "webhook"]
        ok = all(not static_problems(d, environ) for d in hooks)
        blocked = not hooks
    status = "blocked" if blocked else ("pass" if ok else "fail")
    digest = sha256_hex([probe_id, target, status])
    source = next((f["finding_id"] for f in findings if f["rule_id"] == rule), None)
    return {
        "probe_id": probe_id,
        # an object (a client validates it as one); `name` is the human label
        "target": {"kind": probe_id, "name": target},
        "expected_behavior": expected,
        "observed_behavior": "as expected" if ok else "not as expected",
        "status": status,
        "passed": status == "pass",
        "blocked": blocked,
        "fingerprint": "sha256:" + digest,
        "finding_id": "bap_" + digest[:16] if status == "fail" else None,
        "evidence_refs": [{"kind": "assessment_probe", "path": probe_id}],
        "source_finding": source,
        "dry_run": True,
    }


async def run_probes(service: IncidentService, body: Any) -> dict[str, Any]:
    body = body if isinstance(body, Mapping) else {}
    mode = mode_of(body.get("mode"))
    selected = body.get("probes") or list(PROBES)
    if not isinstance(selected, list) or any(p not in PROBES for p in selected):
        raise bad_request(
            "ASSESSMENT_PROBES_INVALID",
            f"probes must name some of {', '.join(PROBES)}",
            field="probes",
        )
    drafts = bool(body.get("include_draft_suggestions"))
    inv, ctx = await gather(service)
    findings = posture_findings(inv, ctx)
    results = (
        []
        if mode == "disabled"
        else [await _probe(service, p, inv, ctx, findings) for p in selected]
    )
    for r in results:
        if drafts and r["status"] == "fail":
            r["incident_draft_suggestion"] = {
                "source": "security_assessment_probe",
                "event_type": "security.probe.failed",
                "title": f"Assessment probe {r['probe_id']} failed",
                "fingerprint": r["fingerprint"],
                "risk_level": "high",
                "risk_category": "security_posture",
                "confidence": "high",
                "route_tags": ["security_posture", r["probe_id"]],
            }
    statuses = Counter(r["status"] for r in results)
    return {
        "schema_version": 1,
        "generated_at_ms": service.now_ms(),
        "scope": {
            "source": "incident_monitor_assessment_probes",
            "read_only": True,
            "dry_run": True,
            "mutates_external_systems": False,
        },
        "mode": mode,
        "selected_probe_ids": list(selected),
        "counts": {
            "results": len(results),
            "pass": statuses["pass"],
            "fail": statuses["fail"],
            "blocked": statuses["blocked"],
            "by_status": dict(statuses),
            "draft_suggestions": sum("incident_draft_suggestion" in r for r in results),
        },
        "results": results,
    }
