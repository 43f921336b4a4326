"""The approvals listing: queued spawns, and the tool approvals of agent-team sessions.

``toolApprovals`` are the pending permission requests (see
:class:`svc.sessions.PermissionService`) raised in an instance's session, such
as a ``git_push`` that ``push_requires_approval`` turned into a request. They
are answered through the ordinary permission reply route.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..sessions import PermissionRequest
from .records import Instance, SpawnApproval


def tool_approval(request: PermissionRequest, owner: Instance) -> dict[str, Any]:
    item: dict[str, Any] = {
        "approvalID": request.id,
        "sessionID": request.session_id,
        "toolCallID": request.id,
        "tool": request.tool,
        "args": dict(request.args),
        "status": "pending",
        "runID": request.run_id,
        "requestedAtMs": request.requested_at_ms,
        "instanceID": owner.id,
        "missionID": owner.mission_id,
    }
    return {k: v for k, v in item.items() if v is not None}


def approvals_listing(
    spawns: Iterable[SpawnApproval],
    pending: Iterable[PermissionRequest],
    instances: Iterable[Instance],
) -> dict[str, Any]:
    """The ``GET /agent-team/approvals`` body."""
    owners = {instance.session_id: instance for instance in instances}
    spawn = [approval.to_wire() for approval in spawns]
    tools = [
        tool_approval(request, owners[request.session_id])
        for request in sorted(pending, key=lambda r: (r.requested_at_ms, r.id))
        if request.session_id in owners
    ]
    return {"spawnApprovals": spawn, "toolApprovals": tools, "count": len(spawn) + len(tools)}


__all__ = ["approvals_listing", "tool_approval"]
