"""The authority inventory (reference §1.24): what the runtime's agents may do, read-only.

Every row is a summary: ids, names, kinds, flags, tool and server names, and the
*presence* of credentials and settings, never their values. The omitted fields are
listed in ``sensitive_values`` so a reader knows what was left out on purpose.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from .config import Destination, Route
    from .service import IncidentService

LIST_CAP = 100
LOCAL_TENANT = {"org_id": "local", "workspace_id": "local", "source": "local_implicit"}
OMITTED_FIELDS = [
    "incident_monitor_intake_key.key_hash",
    "incident_monitor_intake_key.raw_key",
    "destination.webhook_url_value",
    "destination.webhook_secret_ref_value",
    "destination.config_values",
    "workflow.action.with_values",
    "automation.model_policy_values",
    "automation.node.metadata_values",
    "routine.args_values",
    "routine.output_target_values",
    "source.data_readiness.allowed_use",
    "source.data_readiness.quality_notes",
    "source.data_readiness.legal_basis",
    "source.data_readiness.authorization_marker",
    "source.path",
    "external_action.receipt",
    "external_action.metadata",
    "mcp.transport_url",
    "mcp.header_values",
    "mcp.secret_refs",
    "mcp.credential_binding",
    "mcp.last_auth_challenge",
    "approval.arguments",
    "policy_decision.reason",
]


def sensitive_values() -> dict[str, Any]:
    return {"policy": "redacted_or_summarized", "omitted_fields": list(OMITTED_FIELDS)}


def destination_row(d: Destination) -> dict[str, Any]:
    return {
        "destination_id": d.destination_id,
        "name": d.name,
        "kind": d.kind,
        "enabled": d.enabled,
        "require_approval": d.require_approval,
        "repo": d.repo,
        "mcp_server": d.mcp_server,
        "linear_team": d.linear_team,
        "linear_project": d.linear_project,
        "webhook_url_present": bool(d.webhook_url),
        "webhook_secret_ref_present": bool(d.webhook_secret_ref),
        "telemetry_path_present": bool(d.telemetry_path),
        "mcp_tool": d.mcp_tool,
        "memory_category": d.memory_category,
        "route_tags": list(d.route_tags),
        "custom_config_keys": sorted((d.config or {}).keys()),
    }


def route_row(r: Route) -> dict[str, Any]:
    match = {
        f.name.removeprefix("match_"): list(getattr(r, f.name))
        for f in attrs.fields(type(r))
        if f.name.startswith("match_")
    }
    return {
        "route_id": r.route_id,
        "name": r.name,
        "enabled": r.enabled,
        "priority": r.priority,
        "destination_ids": list(r.destination_ids),
        "approval_policy": r.approval_policy,
        "match": match,
    }


def monitored_source_rows(service: IncidentService) -> list[dict[str, Any]]:
    from .config import source_binding

    rows = []
    for project in service.config.monitored_projects:
        sources = [None, *project.log_sources]
        for source in sources:
            binding = source_binding(project, source)
            readiness = binding.data_readiness
            rows.append(
                {
                    "project_id": project.project_id,
                    "source_id": source.source_id if source else None,
                    "kind": "log_source" if source else "project",
                    "enabled": project.enabled and (source.enabled if source else True),
                    "format": source.format if source else None,
                    "source_kind": binding.source_kind,
                    "tenant_id": binding.tenant_id,
                    "workspace_id": binding.workspace_id,
                    "allowed_destination_ids": list(binding.allowed_destination_ids),
                    "default_destination_ids": list(binding.default_destination_ids),
                    "route_tags": list(binding.route_tags),
                    "approval_policy": binding.approval_policy,
                    "redaction_profile": binding.redaction_profile,
                    "data_readiness_keys": sorted(k for k, v in readiness.items() if v is not None),
                    "data_classification": readiness.get("data_classification"),
                    "source_owner": readiness.get("source_owner"),
                }
            )
    return rows


def _tool_policy(policy: Any) -> dict[str, Any]:
    policy = policy if isinstance(policy, Mapping) else {}
    return {
        "allowlist": list(policy.get("allowlist") or []),
        "denylist": list(policy.get("denylist") or []),
    }


def _mcp_policy(policy: Any) -> dict[str, Any]:
    policy = policy if isinstance(policy, Mapping) else {}
    tools = policy.get("allowed_tools")
    return {
        "allowed_servers": list(policy.get("allowed_servers") or []),
        "allowed_tools": list(tools) if tools is not None else None,
    }


async def automation_rows(service: IncidentService) -> tuple[list[Any], list[Any]]:
    """(automation specs, agents) of automations v2 and routines."""
    automations = service.engine.automations
    if automations is None:
        return [], []
    specs: list[dict[str, Any]] = []
    agents: list[dict[str, Any]] = []
    for a in await automations.v2_repo.all():
        spec = a.spec
        metadata = spec.get("metadata") if isinstance(spec.get("metadata"), Mapping) else {}
        spec_agents = [x for x in spec.get("agents") or [] if isinstance(x, Mapping)]
        flow = spec.get("flow") if isinstance(spec.get("flow"), Mapping) else {}
        nodes = [n for n in (flow or {}).get("nodes") or [] if isinstance(n, Mapping)]
        specs.append(
            {
                "automation_id": a.automation_id,
                "kind": "automation_v2",
                "name": a.name,
                "status": a.status,
                "creator_type": a.creator_kind,
                "creator_id": a.creator_id,
                "agent_ids": [str(x.get("agent_id")) for x in spec_agents],
                "node_ids": [str(n.get("node_id")) for n in nodes],
                "model_policy_present": any(x.get("model_policy") for x in spec_agents),
                "metadata_keys": sorted(metadata or {}),
                "updated_at_ms": a.updated_at_ms,
            }
        )
        for x in spec_agents:
            agents.append(
                {
                    "agent_id": str(x.get("agent_id")),
                    "automation_id": a.automation_id,
                    "template_id": x.get("template_id"),
                    "tool_policy": _tool_policy(x.get("tool_policy")),
                    "mcp_policy": _mcp_policy(x.get("mcp_policy")),
                }
            )
    for r in automations.routines.all_routines():
        specs.append(
            {
                "automation_id": r.routine_id,
                "kind": "routine",
                "name": r.name,
                "status": r.status,
                "creator_type": r.creator_type,
                "creator_id": r.creator_id,
                "entrypoint": r.entrypoint,
                "allowed_tools": list(r.allowed_tools),
                "requires_approval": r.requires_approval,
                "external_integrations_allowed": r.external_integrations_allowed,
                "output_target_count": len(r.output_targets),
                "args_keys": sorted(r.args),
                "updated_at_ms": r.updated_at_ms,
            }
        )
    return specs, agents


async def workflow_rows(service: IncidentService) -> tuple[list[Any], list[Any]]:
    from ..errors import SvcError

    try:
        from ..workflows.component import workflows_of

        workflows = workflows_of(service.engine)
        specs = await workflows.list_workflows()
        hooks = await workflows.hooks()
    except SvcError:
        return [], []
    rows = [
        {
            "workflow_id": w.workflow_id,
            "name": w.name,
            "enabled": w.enabled,
            "automation_id": w.automation_id,
            "step_count": len(w.steps),
            "hook_count": len(w.hooks),
        }
        for w in specs
    ]
    hook_rows = [
        {
            "binding_id": h.binding_id,
            "workflow_id": h.workflow_id,
            "event": h.event,
            "enabled": h.enabled,
            "actions": [getattr(a, "action", None) for a in h.actions],
        }
        for h in hooks
    ]
    return rows, hook_rows


def mcp_rows(service: IncidentService) -> list[dict[str, Any]]:
    mcp = service.engine.mcp
    if mcp is None:
        return []
    rows = []
    for snap in mcp.snapshots():
        config = snap.config
        rows.append(
            {
                "name": config.name,
                "enabled": config.enabled,
                "connected": snap.state.connected,
                "header_names": sorted(config.headers),
                "auth_headers_present": bool(config.headers),
                "tool_allowlist": list(config.allowed_tools)
                if config.allowed_tools is not None
                else None,
                "allowed_tool_names": [t.tool_name for t in snap.allowed_tools()][:LIST_CAP],
            }
        )
    return rows


async def approval_rows(service: IncidentService) -> tuple[list[Any], list[Any]]:
    """(approval rules, pending approvals), each summarized and capped."""
    engine = service.engine
    config = service.config
    rules: list[dict[str, Any]] = [
        {
            "kind": "permission_rule",
            "id": r.id,
            "permission": r.permission,
            "pattern": r.pattern,
            "action": r.action,
            "session_scoped": r.session_id is not None,
        }
        for r in engine.permissions.rules
    ]
    rules.append(
        {
            "kind": "incident_monitor_safety",
            "id": "incident_monitor.safety_defaults",
            "require_approval_for_high_risk": config.safety_defaults.require_approval_for_high_risk,
            "require_approval_for_new_issues": config.require_approval_for_new_issues,
            "block_unready_destinations": config.safety_defaults.block_unready_destinations,
        }
    )
    for route in config.routes:
        rules.append(
            {
                "kind": "incident_route",
                "id": route.route_id or route.name,
                "approval_policy": route.approval_policy,
            }
        )
    pending: list[dict[str, Any]] = []
    for req in await engine.permissions.requests(status="pending", limit=LIST_CAP):
        pending.append(
            {
                "kind": "permission",
                "approval_id": req.id,
                "subject": req.tool,
                "session_id": req.session_id,
                "created_at_ms": getattr(req, "created_at_ms", None),
            }
        )
    if engine.teams is not None:
        for spawn in await engine.teams.repo.approvals():
            pending.append(
                {
                    "kind": "spawn",
                    "approval_id": spawn.id,
                    "subject": f"role:{spawn.request.role}",
                    "mission_id": spawn.mission_id,
                    "created_at_ms": spawn.created_at_ms,
                }
            )
    if engine.mcp is not None:
        for cap in await engine.mcp.capability_requests(status="pending", limit=LIST_CAP):
            pending.append(
                {
                    "kind": "mcp_capability",
                    "approval_id": cap.get("approval_id"),
                    "subject": (cap.get("context") or {}).get("capability_key"),
                    "agent_id": (cap.get("requested_by") or {}).get("actor_id"),
                    "created_at_ms": cap.get("created_at_ms"),
                }
            )
    for draft in await service.drafts.drafts(limit=200):
        if draft.status == "approval_required":
            pending.append(
                {
                    "kind": "incident_draft",
                    "approval_id": draft.draft_id,
                    "subject": f"draft:{draft.draft_id}",
                    "created_at_ms": draft.get("created_at_ms"),
                }
            )
    return rules, pending[:LIST_CAP]


async def build_inventory(service: IncidentService) -> dict[str, Any]:
    config = service.config
    workflows, hooks = await workflow_rows(service)
    specs, agents = await automation_rows(service)
    servers = mcp_rows(service)
    destinations = [destination_row(d) for d in config.effective_destinations()]
    routes = [route_row(r) for r in config.routes]
    sources = monitored_source_rows(service)
    keys = [
        {
            "key_id": k.key_id,
            "project_id": k.project_id,
            "name": k.name,
            "enabled": k.enabled,
            "scopes": list(k.scopes),
            "created_at_ms": k.created_at_ms,
            "last_used_at_ms": k.last_used_at_ms,
            "key_hash_present": bool(k.key_hash),
        }
        for k in await service.keys.all_keys()
    ]
    rules, pending = await approval_rows(service)
    decisions = [d.to_wire() for d in await service.decisions.window(limit=LIST_CAP)]
    for d in decisions:
        d.pop("reason", None)
    posts = await service.posts.page(limit=LIST_CAP)
    actions = [
        {
            "post_id": p.post_id,
            "draft_id": p.draft_id,
            "destination_id": p.text("destination_id"),
            "destination_kind": p.text("destination_kind"),
            "status": p.status,
            "updated_at_ms": p.updated_at_ms,
        }
        for p in posts
    ]
    return {
        "schema_version": 1,
        "generated_at_ms": service.now_ms(),
        "scope": {
            "tenant_context": dict(LOCAL_TENANT),
            "source": "incident_monitor_authority_inventory",
            "read_only": True,
            "dry_run": True,
            "redacted": True,
            "mutates_external_systems": False,
        },
        "inventory": {
            "workflows": workflows,
            "hooks": hooks,
            "automation_specs": specs,
            "agents": agents,
            "mcp": {"servers": servers},
            "incident_monitor": {
                "enabled": config.enabled,
                "paused": config.paused,
                "repo": config.repo,
                "default_destination_ids": list(config.default_destination_ids),
                "model_policy_present": config.model_policy is not None,
                "provider_preference": config.provider_preference,
                "auto_create_new_issues": config.auto_create_new_issues,
                "require_approval_for_new_issues": config.require_approval_for_new_issues,
                "auto_comment_on_matched_open_issues": config.auto_comment_on_matched_open_issues,
                "safety_defaults": attrs.asdict(config.safety_defaults),
                "updated_at_ms": config.updated_at_ms,
            },
            "destinations": destinations,
            "routes": routes,
            "monitored_sources": sources,
            "scoped_intake_keys": keys,
            "approval_rules": rules,
            "pending_approvals": pending,
            "policy_decisions": decisions,
            "external_publish_surfaces": {
                "configured_destinations": [
                    {
                        "destination_id": d["destination_id"],
                        "kind": d["kind"],
                        "enabled": d["enabled"],
                        "require_approval": d["require_approval"],
                    }
                    for d in destinations
                ],
                "recent_actions": actions,
            },
        },
        "counts": {
            "workflows": len(workflows),
            "hooks": len(hooks),
            "automation_specs": len(specs),
            "agents": len(agents),
            "mcp_servers": len(servers),
            "destinations": len(destinations),
            "routes": len(routes),
            "monitored_sources": len(sources),
            "scoped_intake_keys": len(keys),
            "approval_rules": len(rules),
            "pending_approvals": len(pending),
            "policy_decisions": len(decisions),
            "external_actions": len(actions),
        },
        "sensitive_values": sensitive_values(),
    }
