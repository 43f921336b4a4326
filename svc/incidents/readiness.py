"""Destination readiness per kind (reference §1.14), re-checked at every publish."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .config import Destination, MonitorConfig
from .config_validation import valid_repo
from .webhook_policy import static_problems

MEMORY_CATEGORIES = ("failure_pattern", "recurrence", "policy_gap", "safety_risk")

# The tool names each issue-tracking flow needs, by role, in order of preference.
GITHUB_TOOLS: dict[str, tuple[str, ...]] = {
    "list": ("list_issues", "search_issues"),
    "get": ("get_issue",),
    "create": ("create_issue",),
    "comment": ("add_issue_comment", "create_issue_comment"),
}
TRACKER_TOOLS: dict[str, tuple[str, ...]] = {
    "list": ("list_issues", "search_issues"),
    "create": ("create_issue", "save_issue"),
    "comment": ("create_comment", "add_comment"),
}


@attrs.frozen
class ServerView:
    """What readiness needs to know of a configured MCP server."""

    name: str
    enabled: bool
    connected: bool
    tools: tuple[str, ...]
    """The names of its tools the connector allows."""


ServerLookup = Callable[[str], ServerView | None]


def pick_tool(view: ServerView | None, names: tuple[str, ...]) -> str | None:
    if view is None:
        return None
    return next((n for n in names if n in view.tools), None)


@attrs.frozen
class Readiness:
    destination_id: str
    kind: str
    enabled: bool
    missing: tuple[str, ...]
    requires_approval: bool
    detail: str | None = None

    @property
    def ready(self) -> bool:
        return not self.missing

    def to_wire(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "destination_id": self.destination_id,
            "kind": self.kind,
            "enabled": self.enabled,
            "ready": self.ready,
            "publish_ready": self.ready,
            "requires_approval": self.requires_approval,
            "missing": list(self.missing),
        }
        if self.detail:
            body["detail"] = self.detail
        return body


def memory_category(destination: Destination) -> str | None:
    raw = destination.memory_category or destination.option("memory_category", "category")
    name = str(raw or "failure_pattern").strip().lower().replace("-", "_").replace(" ", "_")
    return name if name in MEMORY_CATEGORIES else None


def _server(missing: list[str], name: str | None, servers: ServerLookup) -> ServerView | None:
    if not name:
        missing.append("MCP server is missing")
        return None
    view = servers(name)
    if view is None:
        missing.append("MCP server is not configured")
    elif not view.enabled:
        missing.append("MCP server is disabled")
    elif not view.connected:
        missing.append("MCP server is disconnected")
    return view


def destination_readiness(
    config: MonitorConfig,
    destination: Destination,
    *,
    servers: ServerLookup,
    environ: Mapping[str, str],
) -> Readiness:
    missing: list[str] = []
    detail: str | None = None
    if not config.enabled:
        missing.append("Incident Monitor is disabled")
    if config.paused:
        missing.append("Incident Monitor is paused")
    if not destination.enabled:
        missing.append("Destination is disabled")
    kind = destination.kind
    if kind == "github_issue":
        repo = destination.repo or config.repo
        if not repo:
            missing.append("GitHub repo is missing")
        elif not valid_repo(repo):
            missing.append("GitHub repo must be in owner/repo format")
        view = _server(missing, destination.mcp_server or config.mcp_server, servers)
        if view is not None and view.connected:
            roles = ("list", "create", "comment")
            if any(pick_tool(view, GITHUB_TOOLS[r]) is None for r in roles):
                missing.append("GitHub capabilities are missing")
    elif kind == "linear_issue":
        if not (destination.linear_team or "").strip():
            missing.append("Linear team is missing")
        if not (destination.linear_project or "").strip():
            missing.append("Linear project is missing")
        view = _server(missing, destination.mcp_server or config.mcp_server, servers)
        if view is not None and view.connected:
            if pick_tool(view, TRACKER_TOOLS["list"]) is None:
                missing.append("Linear list issues capability is missing")
            if pick_tool(view, TRACKER_TOOLS["create"]) is None:
                missing.append("Linear create issue capability is missing")
    elif kind == "webhook":
        problems = static_problems(destination, environ)
        missing.extend(problems)
        if problems:
            detail = "Webhook destination needs a valid public URL and env-backed signing secret"
    elif kind == "telemetry":
        path = destination.telemetry_path
        if path is not None and not path.strip():
            missing.append("Telemetry path is blank")
    elif kind == "mcp_tool":
        if destination.option("allow_publish", "allow_mcp_publish") is not True:
            missing.append("MCP publish is not explicitly allowed")
        mapping = destination.option("payload", "arguments")
        if destination.config is None:
            missing.append("MCP destination config is missing")
        elif mapping is None:
            missing.append("MCP payload mapping is missing")
        elif not isinstance(mapping, dict):
            missing.append("MCP payload mapping must be an object")
        elif not mapping:
            missing.append("MCP payload mapping must not be empty")
        server = destination.mcp_server or destination.option("mcp_server", "server")
        view = _server(missing, server, servers)
        tool = destination.mcp_tool or destination.option("mcp_tool", "tool", "tool_name")
        if not tool:
            missing.append("MCP tool is missing")
        elif view is not None and view.connected and tool not in view.tools:
            missing.append("MCP tool is not available")
    elif kind == "internal_memory":
        if memory_category(destination) is None:
            missing.append(
                "Memory category must be failure_pattern, recurrence, policy_gap, or safety_risk"
            )
    else:
        missing.append(f"Destination kind `{kind}` is not supported")
    return Readiness(
        destination_id=destination.destination_id,
        kind=kind,
        enabled=destination.enabled,
        missing=tuple(missing),
        requires_approval=config.require_approval_for_new_issues or destination.require_approval,
        detail=detail,
    )


def all_readiness(
    config: MonitorConfig, *, servers: ServerLookup, environ: Mapping[str, str]
) -> list[Readiness]:
    return [
        destination_readiness(config, d, servers=servers, environ=environ)
        for d in config.effective_destinations()
    ]
