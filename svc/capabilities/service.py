"""Capabilities: stable ids for what a workflow needs, bound to the tools that provide them.

* **Discovery** reads the live tool registry: a built-in tool provides the
  capability named like the tool (``read``, ``webfetch``); a tool of a connected
  MCP server provides ``<server>.<tool>`` (``repohost.create_pull_request``).
* **Bindings** (stored, engine-wide) map a capability id to a chosen tool, for
  when discovery would pick none or the wrong one: ``{"tool": "mcp.gh.open_pr"}``.
* **Resolve** answers, for each required capability, the binding if there is
  one, else the discovered provider: an exact id first, then a single MCP tool
  of the same tool name on another server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ValidationFailed

if TYPE_CHECKING:
    from ..clock import Clock
    from ..store import KeyValueRepository
    from ..tools import Tool, ToolRegistry

KV_KEY = "capabilities.bindings"


def provider_of(tool: Tool) -> dict[str, Any]:
    server = getattr(tool, "server", None)
    if isinstance(server, str):
        remote = getattr(tool, "remote_name", tool.name)
        return {
            "capability_id": f"{server}.{remote}",
            "kind": "mcp",
            "tool": tool.name,
            "server": server,
            "tool_name": remote,
            "description": tool.description,
        }
    return {
        "capability_id": tool.name,
        "kind": "builtin",
        "tool": tool.name,
        "server": None,
        "tool_name": tool.name,
        "description": tool.description,
    }


def normalize_bindings(body: Any) -> dict[str, dict[str, Any]]:
    """``{"bindings": {...}}``, the map itself, or a list of ``{capability_id, ...}``."""
    if isinstance(body, Mapping) and "bindings" in body:
        body = body["bindings"]
    items: list[tuple[str, Any]]
    if isinstance(body, Mapping):
        items = list(body.items())
    elif isinstance(body, list):
        items = []
        for i, entry in enumerate(body):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("capability_id"), str):
                raise ValidationFailed(
                    "each binding must be an object with `capability_id`",
                    field=f"bindings[{i}].capability_id",
                )
            items.append((entry["capability_id"], entry))
    else:
        raise ValidationFailed("`bindings` must be an object or a list", field="bindings")
    bindings: dict[str, dict[str, Any]] = {}
    for cap_id, value in items:
        field = f"bindings.{cap_id}"
        if not isinstance(cap_id, str) or not cap_id.strip() or len(cap_id) > 256:
            raise ValidationFailed("a capability id must be a non-empty string", field=field)
        if isinstance(value, str):
            value = {"tool": value}
        if not isinstance(value, Mapping):
            raise ValidationFailed("a binding must be a tool name or an object", field=field)
        binding = {k: v for k, v in value.items() if k != "capability_id"}
        tool = binding.get("tool", binding.get("tool_id"))
        if tool is not None and (not isinstance(tool, str) or not tool.strip()):
            raise ValidationFailed("`tool` must be a non-empty string", field=f"{field}.tool")
        if tool is not None:
            binding["tool"] = tool
        bindings[cap_id.strip()] = binding
    return bindings


class CapabilityService:
    def __init__(self, kv: KeyValueRepository, tools: ToolRegistry, clock: Clock) -> None:
        self._kv = kv
        self._tools = tools
        self._clock = clock

    async def bindings(self) -> dict[str, Any]:
        stored = await self._kv.get(KV_KEY, {}) or {}
        bindings = stored.get("bindings", {})
        return {
            "bindings": bindings,
            "count": len(bindings),
            "updated_at_ms": stored.get("updated_at_ms"),
        }

    async def set_bindings(self, body: Any) -> dict[str, Any]:
        bindings = normalize_bindings(body)
        now = self._clock.now_ms()
        await self._kv.put(KV_KEY, {"bindings": bindings, "updated_at_ms": now}, now_ms=now)
        return {"ok": True, "bindings": bindings, "count": len(bindings), "updated_at_ms": now}

    def discovery(self) -> dict[str, Any]:
        providers = [provider_of(t) for t in self._tools.tools()]
        by_id: dict[str, list[dict[str, Any]]] = {}
        servers: dict[str, list[str]] = {}
        for p in providers:
            by_id.setdefault(p["capability_id"], []).append(p)
            if p["server"]:
                servers.setdefault(p["server"], []).append(p["capability_id"])
        capabilities = [
            {"capability_id": cap, "providers": found} for cap, found in sorted(by_id.items())
        ]
        return {
            "capabilities": capabilities,
            "count": len(capabilities),
            "tools": len(providers),
            "mcp_servers": [
                {"server": name, "capabilities": sorted(caps)}
                for name, caps in sorted(servers.items())
            ],
        }

    async def resolve(self, body: Mapping[str, Any]) -> dict[str, Any]:
        wanted = _wanted(body)
        bindings = (await self.bindings())["bindings"]
        providers = [provider_of(t) for t in self._tools.tools()]
        resolved: list[dict[str, Any]] = []
        for cap in wanted:
            resolved.append(self._resolve_one(cap, bindings.get(cap), providers))
        missing = [r["capability_id"] for r in resolved if r["status"] == "missing"]
        return {
            "ok": not missing,
            "workflow_id": body.get("workflow_id"),
            "resolved": resolved,
            "resolved_capabilities": [r for r in resolved if r["status"] != "missing"],
            "required_capabilities": {
                r["capability_id"]: r["status"] != "missing" for r in resolved
            },
            "missing": missing,
            "missing_required_capabilities": missing,
        }

    def _resolve_one(
        self, cap: str, binding: dict[str, Any] | None, providers: list[dict[str, Any]]
    ) -> dict[str, Any]:
        if binding is not None:
            tool = binding.get("tool")
            available = tool is None or tool in self._tools
            return {
                "capability_id": cap,
                "status": "bound" if available else "missing",
                "source": "binding",
                "binding": binding,
                "tool": tool,
                "available": available,
                "reason": None if available else f"the bound tool `{tool}` is not registered",
            }
        exact = [p for p in providers if p["capability_id"] == cap]
        suffix = cap.rsplit(".", 1)[-1]
        near = [p for p in providers if p["kind"] == "mcp" and p["tool_name"] == suffix]
        found = exact[0] if exact else near[0] if len(near) == 1 else None
        if found is None:
            reason = "no registered tool provides it; bind one with PUT /capabilities/bindings"
            if len(near) > 1:
                reason = "several MCP tools match; bind one with PUT /capabilities/bindings"
            return {
                "capability_id": cap,
                "status": "missing",
                "source": None,
                "tool": None,
                "available": False,
                "candidates": [p["tool"] for p in near],
                "reason": reason,
            }
        return {
            "capability_id": cap,
            "status": "discovered",
            "source": "discovery",
            "provider": found,
            "tool": found["tool"],
            "available": True,
            "reason": None,
        }


def _wanted(body: Mapping[str, Any]) -> list[str]:
    names: list[Any] = []
    for field in ("capability_id", "capability"):
        if body.get(field) is not None:
            names.append(body[field])
    for field in ("capability_ids", "required_capabilities", "capabilities"):
        value = body.get(field)
        if isinstance(value, Mapping):
            names.extend(k for k, required in value.items() if required)
        elif isinstance(value, list):
            names.extend(value)
        elif value is not None:
            raise ValidationFailed(f"`{field}` must be a list of capability ids", field=field)
    if not names:
        raise ValidationFailed(
            "name the capabilities to resolve in `required_capabilities` or `capability_id`",
            field="required_capabilities",
        )
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ValidationFailed(
                "capability ids must be non-empty strings", field="required_capabilities"
            )
    return list(dict.fromkeys(n.strip() for n in names))


__all__ = ["CapabilityService", "normalize_bindings", "provider_of"]
