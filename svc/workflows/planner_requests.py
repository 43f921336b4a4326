"""Bodies of planner requests (camelCase and snake_case keys) and the workspace check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from ..convert import aliases
from .errors import PlanInvalid

MAX_IDEMPOTENCY_KEY = 256


@attrs.frozen
class PlanRequest:
    prompt: str
    schedule: Any = None
    plan_source: str | None = aliases("planSource", default=None)
    progress_id: str | None = aliases("progressId", "progressID", default=None)
    allowed_mcp_servers: list[str] = aliases("allowedMcpServers", factory=list)
    workspace_root: str | None = aliases("workspaceRoot", default=None)
    operator_preferences: dict[str, Any] | None = aliases("operatorPreferences", default=None)


@attrs.frozen
class ChatMessageRequest:
    message: str
    plan_id: str = aliases("planId", "planID")


@attrs.frozen
class PlanIdRequest:
    plan_id: str = aliases("planId", "planID")


@attrs.frozen
class ApplyRequest:
    plan_id: str | None = aliases("planId", "planID", default=None)
    plan: dict[str, Any] | None = None
    creator_id: str | None = aliases("creatorId", "creatorID", default=None)
    overlap_decision: str | None = aliases("overlapDecision", default=None)
    materialize_as_draft: bool = aliases("materializeAsDraft", default=False)
    idempotency_key: str | None = aliases("idempotencyKey", default=None)
    pack_builder_export: dict[str, Any] | None = aliases("packBuilderExport", default=None)


@attrs.frozen
class ImportRequest:
    bundle: Any
    creator_id: str | None = aliases("creatorId", "creatorID", default=None)
    project_slug: str | None = aliases("projectSlug", default=None)
    title: str | None = None
    workspace_root: str | None = aliases("workspaceRoot", default=None)


def absolute_workspace(value: str | None, default: Path) -> str:
    if value is None or not value.strip():
        return str(default)
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise PlanInvalid("`workspace_root` must be an absolute path", field="workspace_root")
    return str(path)


__all__ = [
    "MAX_IDEMPOTENCY_KEY",
    "ApplyRequest",
    "ChatMessageRequest",
    "ImportRequest",
    "PlanIdRequest",
    "PlanRequest",
    "absolute_workspace",
]
