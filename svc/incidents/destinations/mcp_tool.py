"""A generic MCP tool destination: arguments mapped from literals and ``$placeholders``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import Destination, MonitorConfig
from ..redaction import redact_text
from .base import Adapter, Delivery, DeliveryContext


def placeholders(ctx: DeliveryContext, server: str, tool: str) -> dict[str, Any]:
    draft = ctx.draft
    values: dict[str, Any] = {
        f"$draft.{k}": draft.get(k)
        for k in (
            "draft_id",
            "title",
            "detail",
            "fingerprint",
            "risk_level",
            "risk_category",
            "confidence",
            "repo",
            "project_id",
            "log_source_id",
            "status",
            "source",
        )
    }
    values.update(
        {
            "$draft.evidence_refs": list(draft.get("evidence_refs", [])),
            "$draft.triage_summary": draft.get("triage_summary"),
            "$incident.id": ctx.incident.incident_id if ctx.incident else None,
            "$incident.event_type": ctx.incident.get("event_type") if ctx.incident else None,
            "$evidence.digest": ctx.evidence_digest,
            "$idempotency_key": ctx.idempotency_key,
            "$destination.id": ctx.destination.destination_id,
            "$route.id": ctx.match.route_id,
            "$mcp.server": server,
            "$mcp.tool": tool,
        }
    )
    return values


def map_arguments(mapping: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(mapping, str) and mapping.startswith("$"):
        if mapping not in values:
            raise ValueError(f"unknown placeholder `{mapping}`")
        return values[mapping]
    if isinstance(mapping, Mapping):
        return {k: map_arguments(v, values) for k, v in mapping.items()}
    if isinstance(mapping, list):
        return [map_arguments(v, values) for v in mapping]
    return mapping


class McpToolAdapter(Adapter):
    kind = "mcp_tool"
    operation = "call_mcp_tool"
    kind_tag = "mcp_tool"

    def _names(self, destination: Destination) -> tuple[str, str]:
        server = destination.mcp_server or destination.option("mcp_server", "server") or ""
        tool = destination.mcp_tool or destination.option("mcp_tool", "tool", "tool_name") or ""
        return str(server), str(tool)

    def target_ref(self, config: MonitorConfig, destination: Destination) -> str:
        server, tool = self._names(destination)
        return f"mcp:{server}/{tool}"

    async def deliver(self, ctx: DeliveryContext) -> Delivery:
        server, tool = self._names(ctx.destination)
        receipt: dict[str, Any] = {
            "provider": "mcp_tool",
            "server": server,
            "tool": tool,
            "namespaced_tool": f"mcp.{server}.{tool}",
            "target_ref": ctx.target_ref,
            "arguments_redacted": True,
        }
        mapping = ctx.destination.option("payload", "arguments")
        try:
            arguments = map_arguments(mapping, placeholders(ctx, server, tool))
        except ValueError as exc:
            return _failed(receipt, str(exc))
        mcp = ctx.service.engine.mcp
        if mcp is None:
            return _failed(receipt, "MCP is not enabled in this engine")
        try:
            result = await mcp.call(server, tool, arguments)
        except Exception as exc:  # an MCP error of any kind is this delivery's failure
            return _failed(receipt, redact_text(f"{type(exc).__name__}: {exc}", "default"))
        excerpt = redact_text(result.output, "default")[:1000]
        receipt.update(status="posted", result_excerpt=excerpt)
        return Delivery(
            ok=True,
            action=self.operation,
            draft_status="mcp_tool_called",
            receipt=receipt,
            external_id=f"svcmcp_{ctx.idempotency_key[:24]}",
            external_title=receipt["namespaced_tool"],
            response_excerpt=excerpt,
        )


def _failed(receipt: dict[str, Any], error: str) -> Delivery:
    receipt["status"] = "failed"
    return Delivery(
        ok=False,
        action="call_mcp_tool",
        draft_status="mcp_tool_failed",
        receipt=receipt,
        error=error[:500],
    )
