"""One adapter per destination kind; :func:`adapter_for` picks it."""

from __future__ import annotations

from .base import Adapter, Delivery, DeliveryContext


def adapter_for(kind: str) -> Adapter:
    if kind == "webhook":
        from .webhook import WebhookAdapter

        return WebhookAdapter()
    if kind == "telemetry":
        from .local import TelemetryAdapter

        return TelemetryAdapter()
    if kind == "internal_memory":
        from .local import MemoryAdapter

        return MemoryAdapter()
    if kind == "mcp_tool":
        from .mcp_tool import McpToolAdapter

        return McpToolAdapter()
    if kind == "github_issue":
        from .issues import CodeHostAdapter

        return CodeHostAdapter()
    if kind == "linear_issue":
        from .issues import TrackerAdapter

        return TrackerAdapter()
    raise ValueError(f"unknown destination kind {kind}")


__all__ = ["Adapter", "Delivery", "DeliveryContext", "adapter_for"]
