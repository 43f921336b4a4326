"""``GET /incident-monitor/status`` (reference §1.18) and ``/debug``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..convert import unstructure
from .config_validation import valid_repo
from .readiness import GITHUB_TOOLS, pick_tool
from .source_readiness import source_readiness

if TYPE_CHECKING:
    from .service import IncidentService

PENDING_INCIDENTS = (
    "queued",
    "draft_created",
    "triage_queued",
    "analysis_queued",
    "triage_pending",
    "issue_draft_pending",
)


async def build_status(service: IncidentService) -> dict[str, Any]:
    config = service.config
    view = service.server_view(config.mcp_server) if config.mcp_server else None
    tools = {role: pick_tool(view, names) for role, names in GITHUB_TOOLS.items()}
    repo_valid = valid_repo(config.repo)
    ingest = config.enabled and not config.paused and repo_valid
    connected = bool(view and view.connected)
    read = bool(tools["list"])
    write = bool(tools["create"] and tools["comment"])
    destinations = service.readiness()
    states = await service.log_states.all_states()
    sources = source_readiness(
        config, {(s.project_id, s.source_id): s for s in states}, service.now_ms()
    )
    enabled_sources = [r for r in sources if r["enabled"]]
    pending_drafts = await service.drafts.count_drafts("approval_required")
    pending_posts = await service.posts.count("pending", "failed")
    readiness = {
        "config_valid": True,
        "repo_valid": repo_valid,
        "mcp_server_present": view is not None,
        "mcp_connected": connected,
        "github_read_ready": read,
        "github_write_ready": write,
        "selected_model_ready": True,
        "ingest_ready": ingest,
        "publish_ready": ingest and connected and read and write,
        "runtime_ready": ingest and connected and read and write,
        "destination_ready": any(d.ready for d in destinations),
        "source_ready": all(r["ready"] for r in enabled_sources),
        "route_preview_ready": True,
    }
    last_error = None
    if config.enabled:
        if config.paused:
            last_error = "Incident monitor monitoring is paused."
        elif not repo_valid and not config.destinations:
            last_error = "Target repo is missing or invalid."
    watcher_sources = [s.to_wire() for s in states]
    return {
        "config": config.to_wire(),
        "readiness": readiness,
        "runtime": {
            "monitoring_active": config.enabled and not config.paused,
            "paused": config.paused,
            "pending_incidents": await service.drafts.count_incidents(*PENDING_INCIDENTS),
            "total_incidents": await service.drafts.count_incidents(),
            "last_processed_at_ms": service.last_activity_at_ms,
            "pending_posts": pending_posts,
        },
        "log_watcher": {
            "running": config.enabled and not config.paused,
            "enabled_projects": sum(1 for p in config.monitored_projects if p.enabled),
            "enabled_sources": sum(
                1 for p in config.monitored_projects for s in p.log_sources if s.enabled
            ),
            "sources": watcher_sources,
        },
        "required_capabilities": {
            "github_list_issues": bool(tools["list"]),
            "github_get_issue": bool(tools["get"]),
            "github_create_issue": bool(tools["create"]),
            "github_comment_on_issue": bool(tools["comment"]),
        },
        "missing_required_capabilities": [r for r, t in tools.items() if t is None],
        # whole destination records (a client validates each as a destination config);
        # `webhook_secret_ref` is a reference (`env:NAME`), never the secret itself
        "destinations": [unstructure(d) for d in config.effective_destinations()],
        "destination_readiness": [d.to_wire() for d in destinations],
        "source_readiness": sources,
        "pending_drafts": pending_drafts,
        "pending_posts": pending_posts,
        "last_activity_at_ms": service.last_activity_at_ms,
        "last_error": last_error or (service.last_error if config.enabled else None),
    }


def debug_body(service: IncidentService, status: dict[str, Any]) -> dict[str, Any]:
    config = service.config
    view = service.server_view(config.mcp_server) if config.mcp_server else None
    tools = list(view.tools) if view else []
    return {
        "status": status,
        "selected_server_tools": tools,
        "canonicalized_discovered_tools": [
            {
                "server_name": view.name if view else None,
                "tool_name": t,
                "namespaced_name": f"mcp.{view.name if view else ''}.{t}",
                "canonical_name": t.lower().replace("-", "_"),
            }
            for t in tools
        ],
    }
