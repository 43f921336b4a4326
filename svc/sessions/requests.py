"""What a run is asked to do, and the actor messages that carry it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

import attrs
import trio

from supervisors import BudgetScope

from ..entities import Ask
from ..errors import SvcError
from .records import Message, Run, Session

ToolMode = Literal["auto", "none", "required"]

ToolGate = Callable[[str, Mapping[str, Any]], Awaitable[str | None]]
"""An extra policy check for a tool call: returns a denial reason, or None to allow."""


@attrs.frozen
class RunRequest:
    """One prompt to run in a session."""

    parts: tuple[Mapping[str, Any], ...]
    provider_id: str | None = None
    model_id: str | None = None
    agent: str | None = None
    tool_mode: ToolMode = "auto"
    tool_allowlist: tuple[str, ...] | None = None
    tool_denylist: tuple[str, ...] = ()
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    system: str | None = None
    """Extra system instructions (routines, agent roles)."""
    client_id: str | None = None
    agent_id: str | None = None
    idempotency_key: str | None = None
    request_hash: str | None = None
    source: str = "session"
    max_steps: int | None = None
    timeout_ms: int | None = None
    budget: BudgetScope | None = attrs.field(default=None, eq=False)
    """A parent budget (an agent instance's): the run's scope is its child."""
    gates: tuple[ToolGate, ...] = attrs.field(default=(), eq=False)
    metadata: Mapping[str, Any] = attrs.field(factory=dict)


class RunConflict(SvcError):
    """Session already has an active run"""

    code = "SESSION_RUN_CONFLICT"
    status = 409
    retryable = True


class SessionNotFound(SvcError):
    """Session not found"""

    code = "SESSION_NOT_FOUND"
    status = 404


# ------------------------------------------------------------------ actor messages
# Each subclasses Ask[reply type], so SessionService's asks are typed end to end.
@attrs.frozen
class StartRun(Ask["RunStarted"]):
    request: RunRequest


@attrs.frozen
class RunStarted:
    run: Run
    replayed: bool
    done: trio.Event = attrs.field(eq=False)


@attrs.frozen
class CancelRun(Ask["bool"]):
    run_id: str | None = None
    reason: str = "user_cancelled"


@attrs.frozen
class AppendMessage(Ask["Message"]):
    parts: tuple[Mapping[str, Any], ...]


@attrs.frozen
class GetSession(Ask["Session"]):
    pass


@attrs.frozen
class UpdateSession(Ask["Session"]):
    changes: Mapping[str, Any]


@attrs.frozen
class DeleteSession(Ask["dict[str, Any]"]):
    pass


@attrs.frozen
class GetActiveRun(Ask["Run | None"]):
    pass


@attrs.frozen
class SetTodos(Ask["Session"]):
    todos: tuple[Mapping[str, Any], ...]


@attrs.frozen
class RevertMessages(Ask["dict[str, Any]"]):
    message_id: str | None = None


@attrs.frozen
class UnrevertMessages(Ask["dict[str, Any]"]):
    pass


__all__ = [
    "AppendMessage",
    "CancelRun",
    "DeleteSession",
    "GetActiveRun",
    "GetSession",
    "Message",
    "RevertMessages",
    "RunConflict",
    "RunRequest",
    "RunStarted",
    "Session",
    "SessionNotFound",
    "SetTodos",
    "StartRun",
    "ToolGate",
    "ToolMode",
    "UnrevertMessages",
    "UpdateSession",
]
