"""MCP capability requests (SPEC 2.6): an agent asks for a server it lacks; a human reviews.

Filing a request connects nothing: it is a pending approval, stored, announced
on the ``mcp`` topic, and decided once by a reviewer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..clock import Clock
from ..events import EventLog
from ..settings import Settings
from .errors import CapabilityRequestNotFound, McpCatalogUnavailable, McpRequestDenied
from .repository import McpRepository

if TYPE_CHECKING:
    from .capability import CapabilityRequestInput
    from .catalog import Catalog


class CapabilityRequests:
    """Filing, listing and reviewing capability requests (``engine.mcp`` delegates here)."""

    def __init__(
        self,
        *,
        repo: McpRepository,
        events: EventLog,
        clock: Clock,
        settings: Callable[[], Settings],
        load_catalog: Callable[[], Catalog],
    ) -> None:
        self.repo = repo
        self.events = events
        self.clock = clock
        self.settings = settings
        self._load_catalog = load_catalog

    async def request_capability(
        self, request: CapabilityRequestInput, *, source: str, caller_agent_id: str | None = None
    ) -> dict[str, Any]:
        """File a pending approval for an MCP capability; connects nothing (SPEC 2.6)."""
        from .capability import build_approval

        request = request.checked()
        if caller_agent_id is not None and caller_agent_id != request.agent_id:
            raise McpRequestDenied(
                "an agent can only request capabilities for itself",
                field="agent_id",
                agent_id=request.agent_id,
            )
        try:
            catalog: Catalog | None = self._load_catalog()
        except McpCatalogUnavailable:
            catalog = None
        record = build_approval(
            request,
            catalog=catalog,
            source=source,
            now_ms=self.clock.now_ms(),
            ttl_ms=self.settings().mcp_capability_ttl_ms,
        )
        await self.repo.add_capability_request(record)
        self.events.publish(
            "mcp.capability.requested",
            {
                "approvalID": record["approval_id"],
                "agentID": request.agent_id,
                "mcpName": request.mcp_name,
                "capabilityKey": record["context"]["capability_key"],
                "status": "pending",
            },
            topic="mcp",
        )
        return {"ok": True, "approval": record, "requested_by": record["requested_by"]}

    async def capability_requests(
        self, *, agent_id: str | None = None, status: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        return await self.repo.capability_requests(agent_id=agent_id, status=status, limit=limit)

    async def review_capability_request(
        self, approval_id: str, decision: str, *, reviewer: str, notes: str | None = None
    ) -> dict[str, Any]:
        from .capability import reviewed

        record = await self.repo.capability_request(approval_id)
        if record is None:
            raise CapabilityRequestNotFound(
                f"capability request {approval_id} does not exist", approval_id=approval_id
            )
        updated = reviewed(
            record, decision, reviewer=reviewer, notes=notes, now_ms=self.clock.now_ms()
        )
        await self.repo.update_capability_request(updated)
        self.events.publish(
            "mcp.capability.reviewed",
            {
                "approvalID": approval_id,
                "agentID": updated["requested_by"]["actor_id"],
                "status": updated["status"],
                "capabilityKey": updated["context"]["capability_key"],
            },
            topic="mcp",
        )
        return updated

    async def has_approved_capability(self, agent_id: str, capability_key: str) -> bool:
        """Whether ``agent_id`` holds an approved, unexpired request for ``capability_key``
        (``mcp:<slug>``)."""
        now = self.clock.now_ms()
        for record in await self.repo.capability_requests(
            agent_id=agent_id, status="approved", limit=1000
        ):
            expires = record.get("expires_at_ms")
            if record["context"]["capability_key"] == capability_key and (
                expires is None or expires > now
            ):
                return True
        return False


__all__ = ["CapabilityRequests"]
