"""Execution policy for routine runs: external integrations and approval.

A routine *uses external integrations* when its entrypoint is a connector or
integration (``connector.*``, ``integration.*``, or mentions ``external``),
its args say so (``uses_external_integrations: true``, a ``connector_id``), or
its allowlist names MCP tools. Such a routine with
``external_integrations_allowed: false`` is blocked (its run is recorded as
``blocked_policy``). A routine with ``requires_approval: true`` has every run
wait for a human approve or deny. At run time a gate also refuses MCP tool
calls (reached through a wildcard allowlist) when external integrations are not
allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...sessions import ToolGate

MCP_PREFIX = "mcp."


def uses_external_integrations(
    entrypoint: str, args: Mapping[str, Any], allowed_tools: Sequence[str]
) -> bool:
    lowered = entrypoint.lower()
    if lowered.startswith(("connector.", "integration.", MCP_PREFIX)) or "external" in lowered:
        return True
    if args.get("uses_external_integrations") is True or isinstance(args.get("connector_id"), str):
        return True
    return any(tool.startswith(MCP_PREFIX) for tool in allowed_tools)


def initial_status(snapshot: Mapping[str, Any], trigger_type: str) -> tuple[str, str | None]:
    """``(status, reason)`` of a new run: ``blocked_policy``, ``pending_approval`` or ``queued``."""
    external = uses_external_integrations(
        str(snapshot.get("entrypoint") or ""),
        snapshot.get("args") or {},
        snapshot.get("allowed_tools") or (),
    )
    if external and not snapshot.get("external_integrations_allowed"):
        return (
            "blocked_policy",
            "the routine uses external integrations, which its policy does not allow",
        )
    if snapshot.get("requires_approval"):
        what = "external side effects" if external else "this run"
        return "pending_approval", f"manual approval required before {what} ({trigger_type})"
    return "queued", None


def external_gate(allowed: bool) -> tuple[ToolGate, ...]:
    if allowed:
        return ()

    async def refuse_mcp(tool: str, args: Mapping[str, Any]) -> str | None:
        if tool.startswith(MCP_PREFIX):
            return (
                f"tool `{tool}` is an external integration, which this routine's policy "
                "does not allow"
            )
        return None

    return (refuse_mcp,)


__all__ = ["external_gate", "initial_status", "uses_external_integrations"]
