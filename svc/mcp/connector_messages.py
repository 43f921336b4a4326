"""The connector actor's messages, its replies, and what it needs from the engine.

Every message a caller asks subclasses :class:`~svc.entities.Ask` ``[R]`` with
its reply type, so ``engine.entities.ask(...)`` callers are typed. Work that
talks to the server replies with a :class:`Pending` handle the caller awaits
outside the actor (see :mod:`.connector`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

import attrs
import trio

from ..clock import Clock
from ..entities import Ask
from ..events import EventLog
from ..tools import Tool, ToolRegistry, ToolResult
from .records import CachedTool, ConnectorConfig, ConnectorSnapshot
from .repository import McpRepository

T = TypeVar("T")

TOPIC = "mcp"


# ---------------------------------------------------------------------- replies
class Pending(Generic[T]):
    """The eventual outcome of work running in the actor's nursery.

    ``wait()`` returns the value or raises the error. If the waiter is cancelled
    (its run was cancelled, its deadline passed), the work is cancelled too,
    unless other waiters share it (a discovery joined by several callers).
    """

    def __init__(self, *, shared: bool = False) -> None:
        self.done = trio.Event()
        self.scope = trio.CancelScope()
        self.shared = shared
        self._value: tuple[T] | None = None
        """The value, boxed (so a value of None is told apart from no value)."""
        self._error: BaseException | None = None

    def resolve(self, value: T) -> None:
        if not self.done.is_set():
            self._value = (value,)
            self.done.set()

    def fail(self, error: BaseException) -> None:
        if not self.done.is_set():
            self._error = error
            self.done.set()

    @classmethod
    def resolved(cls, value: T) -> Pending[T]:
        pending: Pending[T] = cls()
        pending.resolve(value)
        return pending

    async def wait(self) -> T:
        try:
            await self.done.wait()
        finally:
            if not self.done.is_set() and not self.shared:
                # The waiter gave up: nobody wants the answer, stop the work.
                self.scope.cancel()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value[0]


@attrs.frozen
class ConnectOutcome:
    """A successful connect or refresh."""

    count: int
    """Tools now registered (discovered and allowed)."""
    discovered: int
    changed: bool


# ---------------------------------------------------------------------- messages
@attrs.frozen
class ToolCaller:
    """Who is calling a tool: routes auth events to the right session stream."""

    session_id: str | None = None
    run_id: str | None = None
    message_id: str | None = None
    call_id: str | None = None


@attrs.frozen
class Connect(Ask[Pending[ConnectOutcome]]):
    source: str = "api"


@attrs.frozen
class Refresh(Ask[Pending[ConnectOutcome]]):
    source: str = "api"


@attrs.frozen
class Disconnect(Ask[dict[str, Any]]):
    reason: str = "disconnected"


@attrs.frozen
class Reconfigure(Ask[dict[str, Any]]):
    config: ConnectorConfig


@attrs.frozen
class CallTool(Ask[Pending[ToolResult]]):
    tool: str
    """The remote tool name, its slug or its ``mcp.<server>.<tool>`` ID."""
    arguments: Mapping[str, Any]
    caller: ToolCaller = ToolCaller()


@attrs.frozen
class ListResources(Ask[Pending[list[dict[str, Any]]]]):
    pass


@attrs.frozen
class ReadResource(Ask[Pending[dict[str, Any]]]):
    uri: str


@attrs.frozen
class GetSnapshot(Ask[ConnectorSnapshot]):
    pass


@attrs.frozen
class DeleteConnector(Ask[dict[str, Any]]):
    pass


@attrs.frozen
class CloseSession(Ask[bool]):
    """Engine shutdown: end the session politely (``DELETE``) without changing the
    configuration."""


# ---------------------------------------------------------------------- wiring
@attrs.define(eq=False)
class ConnectorServices:
    """What a connector actor needs from the engine."""

    repo: McpRepository
    events: EventLog
    clock: Clock
    registry: ToolRegistry
    environ: Callable[[], Mapping[str, str]]
    make_tool: Callable[[str, CachedTool], Tool]
    publish: Callable[[ConnectorSnapshot], None]
    """Hands every new snapshot to the service's read model."""
    call_timeout_s: Callable[[], float]
    connect_timeout_s: Callable[[], float]
    auth_cooldown_ms: Callable[[], int]
    oauth: Callable[[str, str], Awaitable[Any]] | None = None
    """The ``httpx2`` auth of a connector with stored OAuth credentials, or None
    (given the connector's name and URL; svc/mcp/oauth.py)."""


__all__ = [
    "TOPIC",
    "CallTool",
    "CloseSession",
    "Connect",
    "ConnectOutcome",
    "ConnectorServices",
    "DeleteConnector",
    "Disconnect",
    "GetSnapshot",
    "ListResources",
    "Pending",
    "ReadResource",
    "Reconfigure",
    "Refresh",
    "ToolCaller",
]
