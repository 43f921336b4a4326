"""Which tools a v2 node may use: its agent's tool policy and MCP policy.

The scope of a node is its own ``tool_policy``/``mcp_policy`` when it has one,
else its agent's. MCP servers come from ``mcp_policy.allowed_servers`` plus the
servers an allowlist entry names (``mcp.github.*``). ``mcp_policy.allowed_tools``
narrows them to those tools; without it each allowed server contributes
``mcp.<server>.*``. The denylist removes tools (``*``, exact, ``prefix*``).

A generic pattern (``*``, ``m*``) would also reach MCP tools of servers the
policy does not allow, so at run time it is expanded against the registry into
exact names with those tools left out: the session's allowlist then shows the
model exactly the permitted schemas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ...tools import normalize_patterns, pattern_matches

MCP_PREFIX = "mcp."


@attrs.frozen
class ToolScope:
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    servers: tuple[str, ...]
    """MCP servers the node may reach."""


def server_of(tool: str) -> str | None:
    """``mcp.github.create_issue`` → ``github``; None for a non-MCP name or pattern."""
    if not tool.startswith(MCP_PREFIX):
        return None
    rest = tool[len(MCP_PREFIX) :]
    server, dot, _ = rest.partition(".")
    if not dot or not server or "*" in server:
        return None
    return server


def node_scope(agent: Mapping[str, Any], node: Mapping[str, Any]) -> ToolScope:
    """The node's tool patterns from the spec alone (no registry)."""
    tools = node.get("tool_policy") or agent["tool_policy"]
    mcp = node.get("mcp_policy") or agent["mcp_policy"]
    allow = list(tools["allowlist"])
    servers = set(mcp.get("allowed_servers") or ())
    servers.update(s for s in (server_of(p) for p in allow) if s)
    if "allowed_tools" in mcp:
        named = mcp["allowed_tools"]
        for entry in named:
            if entry.startswith(MCP_PREFIX):
                allow.append(entry)
            else:
                # A bare tool name applies to each allowed server.
                allow.extend(
                    f"mcp.{server}.{entry}" for server in sorted(mcp.get("allowed_servers") or ())
                )
    else:
        allow.extend(f"mcp.{server}.*" for server in sorted(mcp.get("allowed_servers") or ()))
    return ToolScope(
        tuple(normalize_patterns(allow)),
        tuple(normalize_patterns(tools["denylist"])),
        tuple(sorted(servers)),
    )


def expand(scope: ToolScope, registry_names: Iterable[str]) -> tuple[str, ...]:
    """The allowlist a session gets: patterns naming a server kept, generic ones made exact."""
    names = list(registry_names)
    servers = set(scope.servers)
    out: list[str] = []
    for pattern in scope.allow:
        if server_of(pattern) is not None or not _may_reach_mcp(pattern):
            out.append(pattern)
            continue
        for name in names:
            if pattern_matches(pattern, name) and (
                not name.startswith(MCP_PREFIX) or server_of(name) in servers
            ):
                out.append(name)
    return tuple(normalize_patterns(out))


def _may_reach_mcp(pattern: str) -> bool:
    if not pattern.endswith("*"):
        return False
    prefix = pattern[:-1]
    return MCP_PREFIX.startswith(prefix) or prefix.startswith(MCP_PREFIX)


def run_allowed_tools(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """Every tool pattern any node of ``spec`` may use (for the run record)."""
    agents = {a["agent_id"]: a for a in spec["agents"]}
    patterns: list[str] = []
    for node in spec["flow"]["nodes"]:
        patterns.extend(node_scope(agents[node["agent_id"]], node).allow)
    return tuple(sorted(normalize_patterns(patterns)))


def explicit_names(allow: Iterable[str]) -> list[str]:
    """The exact tool names of an allowlist (patterns excluded)."""
    return [p for p in allow if "*" not in p]


__all__ = [
    "MCP_PREFIX",
    "ToolScope",
    "expand",
    "explicit_names",
    "node_scope",
    "run_allowed_tools",
    "server_of",
]
