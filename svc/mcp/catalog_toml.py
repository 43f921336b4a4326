"""A catalog entry as a TOML configuration snippet (``GET /mcp/catalog/{slug}/toml``).

The snippet is what an operator pastes into a TOML-configured MCP client:
``[mcp_servers.<server name>]`` with the transport URL, plus comments saying what the
server is and how it authenticates. Strings are written as TOML basic strings (JSON's
escapes are a subset TOML accepts).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .catalog import match_key


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _comment(text: str) -> str:
    return " ".join(text.split())


def entry_toml(entry: Mapping[str, Any]) -> str:
    table = match_key(str(entry.get("server_name") or entry["slug"])) or "server"
    lines = [f"# {_comment(str(entry.get('name') or entry['slug']))}"]
    if entry.get("description"):
        lines.append(f"# {_comment(str(entry['description']))}")
    if entry.get("documentation_url"):
        lines.append(f"# Documentation: {_comment(str(entry['documentation_url']))}")
    if entry.get("requires_auth"):
        kind = entry.get("auth_kind") or "a credential"
        lines.append(f"# Requires authorization ({_comment(str(kind))}).")
    lines.append(f"[mcp_servers.{table}]")
    if entry.get("transport_url"):
        lines.append(f"url = {_string(str(entry['transport_url']))}")
    lines.append("enabled = true")
    tools = [str(t) for t in entry.get("tool_names") or []]
    if tools:
        lines.append("enabled_tools = [" + ", ".join(_string(t) for t in tools) + "]")
    return "\n".join(lines) + "\n"
