"""Capability requests: an agent asks for an MCP server it does not have (SPEC 2.6).

A request is only a record: an approval with status ``pending`` for a human to
review. It never connects a server or runs a remote tool. The capability it
names is ``mcp:<slug>`` (the catalog slug, or the slugged server name), which
is what an approval is later checked against.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import attrs

from ..convert import aliases
from ..errors import ValidationFailed
from .catalog import Catalog, match_key

REVIEW_DECISIONS = {
    "approve": "approved",
    "approved": "approved",
    "deny": "denied",
    "denied": "denied",
}


@attrs.frozen
class CapabilityRequestInput:
    agent_id: str
    mcp_name: str
    rationale: str
    catalog_slug: str | None = aliases("catalogSlug", default=None)
    requested_tools: list[str] = aliases("requestedTools", factory=list)
    context: dict[str, Any] = attrs.field(factory=dict)
    expires_at_ms: int | None = aliases("expiresAtMs", default=None)

    def checked(self) -> CapabilityRequestInput:
        for field in ("agent_id", "mcp_name", "rationale"):
            if not getattr(self, field).strip():
                raise ValidationFailed(f"`{field}` must not be empty", field=field)
        return self


def capability_key(request: CapabilityRequestInput) -> str:
    return "mcp:" + match_key(request.catalog_slug or request.mcp_name)


def build_approval(
    request: CapabilityRequestInput,
    *,
    catalog: Catalog | None,
    source: str,
    now_ms: int,
    ttl_ms: int,
) -> dict[str, Any]:
    """The approval record (``approval_id``, ``request_type``, ``requested_by`` ...
    ``review_notes``)."""
    entry: Mapping[str, Any] | None = None
    if catalog is not None:
        entry = (
            catalog.find(request.catalog_slug)
            if request.catalog_slug
            else catalog.find(request.mcp_name)
        )
    expires = request.expires_at_ms if request.expires_at_ms is not None else now_ms + ttl_ms
    if expires <= now_ms:
        raise ValidationFailed("`expires_at_ms` must be in the future", field="expires_at_ms")
    requested_by = {"kind": "agent", "actor_id": request.agent_id, "source": source}
    return {
        "approval_id": f"apr_{uuid.uuid4().hex}",
        "request_type": "capability_request",
        "requested_by": requested_by,
        "target_resource": {"type": "agent", "id": request.agent_id},
        "rationale": request.rationale.strip(),
        "context": {
            "agent_id": request.agent_id,
            "mcp_name": request.mcp_name,
            "catalog_slug": request.catalog_slug,
            "requested_tools": list(request.requested_tools),
            "catalog_match": entry is not None,
            "catalog_entry": dict(entry) if entry is not None else None,
            "capability_key": capability_key(request),
            "context": dict(request.context),
        },
        "status": "pending",
        "expires_at_ms": expires,
        "reviewed_by": None,
        "reviewed_at_ms": None,
        "review_notes": None,
        "created_at_ms": now_ms,
        "updated_at_ms": now_ms,
    }


def reviewed(
    record: Mapping[str, Any], decision: str, *, reviewer: str, notes: str | None, now_ms: int
) -> dict[str, Any]:
    """The record after a human decided on it."""
    status = REVIEW_DECISIONS.get(decision)
    if status is None:
        raise ValidationFailed("`decision` must be approve or deny", field="decision")
    if record["status"] != "pending":
        raise ValidationFailed(
            f"approval {record['approval_id']} is already {record['status']}", field="decision"
        )
    return {
        **record,
        "status": status,
        "reviewed_by": reviewer,
        "reviewed_at_ms": now_ms,
        "review_notes": notes,
        "updated_at_ms": now_ms,
    }


__all__ = ["CapabilityRequestInput", "build_approval", "capability_key", "reviewed"]
