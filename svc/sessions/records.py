"""Session, message and run records, and their wire shapes.

Parts are kept in their wire form (small dicts: ``{"type": "text", "text": ...}``,
``{"type": "tool", "tool": ..., "args": ..., "state": ..., "result": ...}``,
``{"type": "file", ...}``), because that is how they are stored, streamed and
returned; the records around them are attrs classes.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from typing import Any, Literal

import attrs

RunStatus = Literal["running", "completed", "error", "timeout", "cancelled"]
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "error", "timeout", "cancelled"})
Role = Literal["user", "assistant", "system", "tool"]

DEFAULT_TITLE = "New session"


@attrs.frozen
class ModelRef:
    provider_id: str
    model_id: str

    def to_wire(self) -> dict[str, str]:
        return {"providerID": self.provider_id, "modelID": self.model_id}


@attrs.frozen
class Session:
    id: str
    title: str
    directory: str
    """The session workspace: file tools and local file parts are confined to it."""
    created_at_ms: int
    updated_at_ms: int
    project_id: str | None = None
    parent_id: str | None = None
    provider_id: str | None = None
    model_id: str | None = None
    settings: Mapping[str, Any] = attrs.field(factory=dict)
    """Sampling defaults (temperature, top_p, max_tokens) and tool policy."""
    source_kind: str | None = None
    source_metadata: Mapping[str, Any] | None = None
    archived: bool = False
    todos: tuple[Mapping[str, Any], ...] = ()

    @property
    def model(self) -> ModelRef | None:
        if self.provider_id and self.model_id:
            return ModelRef(self.provider_id, self.model_id)
        return None

    def to_wire(self, messages: list[Message] | None = None) -> dict[str, Any]:
        """The ``WireSession`` shape (times in epoch seconds, as the wire has them)."""
        wire: dict[str, Any] = {
            "id": self.id,
            "version": "v1",
            "directory": self.directory,
            "workspaceRoot": self.directory,
            "title": self.title,
            "time": {"created": self.created_at_ms // 1000, "updated": self.updated_at_ms // 1000},
            "environment": environment(),
            "archived": self.archived,
            "messages": [m.to_wire() for m in messages or []],
        }
        if self.project_id:
            wire["projectID"] = self.project_id
        if self.parent_id:
            wire["parentID"] = self.parent_id
        if self.provider_id:
            wire["provider"] = self.provider_id
        if self.model is not None:
            wire["model"] = self.model.to_wire()
        if self.source_kind:
            wire["sourceKind"] = self.source_kind
        if self.source_metadata:
            wire["sourceMetadata"] = dict(self.source_metadata)
        return wire

    def to_internal(self) -> dict[str, Any]:
        """The snake_case shape ``PATCH /session/{id}`` answers with."""
        return {
            "id": self.id,
            "title": self.title,
            "directory": self.directory,
            "workspace_root": self.directory,
            "project_id": self.project_id,
            "parent_id": self.parent_id,
            "model": {"provider_id": self.provider_id, "model_id": self.model_id}
            if self.model
            else None,
            "archived": self.archived,
            "time": {"created_ms": self.created_at_ms, "updated_ms": self.updated_at_ms},
            "settings": dict(self.settings),
        }


@attrs.frozen
class Message:
    id: str
    session_id: str
    role: Role
    parts: tuple[Mapping[str, Any], ...]
    created_at_ms: int
    run_id: str | None = None
    info: Mapping[str, Any] = attrs.field(factory=dict)

    def text(self) -> str:
        return "".join(p.get("text", "") for p in self.parts if p.get("type") == "text")

    def to_wire(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "id": self.id,
            "sessionID": self.session_id,
            "role": self.role,
            "time": {"created": self.created_at_ms // 1000},
        }
        info.update({k: v for k, v in self.info.items() if k not in info})
        return {"info": info, "parts": [dict(p) for p in self.parts]}


@attrs.frozen
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    estimated: bool = False

    def plus(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
            self.cost_usd + other.cost_usd,
            self.estimated or other.estimated,
        )

    def to_wire(self) -> dict[str, Any]:
        return {
            "promptTokens": self.prompt_tokens,
            "completionTokens": self.completion_tokens,
            "totalTokens": self.total_tokens,
            "costUsd": round(self.cost_usd, 8),
            "estimated": self.estimated,
        }


@attrs.frozen
class Run:
    id: str
    session_id: str
    status: RunStatus
    started_at_ms: int
    last_activity_at_ms: int
    source: str = "session"
    provider_id: str | None = None
    model_id: str | None = None
    client_id: str | None = None
    agent_id: str | None = None
    idempotency_key: str | None = None
    request_hash: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    """The run's tool allowlist (``None``: every registered tool)."""
    user_message_id: str | None = None
    assistant_message_id: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    failure_category: str | None = None
    usage: Usage = Usage()
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    finished_at_ms: int | None = None

    @property
    def active(self) -> bool:
        return self.status == "running"

    def active_wire(self) -> dict[str, Any]:
        """The ``ActiveRun`` shape (null fields present, as the conflict body has them)."""
        return {
            "runID": self.id,
            "startedAtMs": self.started_at_ms,
            "lastActivityAtMs": self.last_activity_at_ms,
            "clientID": self.client_id,
            "agentID": self.agent_id,
            "agentProfile": self.metadata.get("agentProfile"),
        }

    def to_wire(self) -> dict[str, Any]:
        return {
            "runID": self.id,
            "sessionID": self.session_id,
            "status": self.status,
            "source": self.source,
            "startedAtMs": self.started_at_ms,
            "lastActivityAtMs": self.last_activity_at_ms,
            "finishedAtMs": self.finished_at_ms,
            "model": {"providerID": self.provider_id, "modelID": self.model_id}
            if self.model_id
            else None,
            "allowed_tools": list(self.allowed_tools) if self.allowed_tools is not None else None,
            "error": {"code": self.error_code, "message": self.error_message}
            if self.error_code
            else None,
            "failureCategory": self.failure_category,
            "usage": self.usage.to_wire(),
            "clientID": self.client_id,
            "agentID": self.agent_id,
        }


def environment() -> dict[str, str]:
    system = platform.system().lower()
    return {
        "os": "macos" if system == "darwin" else system,
        "arch": platform.machine(),
        "shell_family": "windows" if system == "windows" else "posix",
        "path_style": "windows" if system == "windows" else "posix",
    }


def attach_hint(session_id: str, run_id: str) -> str:
    return f"/event?sessionID={session_id}&runID={run_id}"
