"""The connector actor: one per MCP connector (``mcp/<name>``).

It owns the connector's MCP session (an :class:`~svc.mcp.client.McpLink`), its
tool cache, its authorization challenges and its slice of the global tool
registry (every tool under ``mcp.<server>.``). Connect, refresh, call,
disconnect, reconfigure and delete are messages to it, handled one at a time,
so its state needs no locks.

Network work never runs in the mailbox loop: a discovery (``initialize`` +
``tools/list``) or a ``tools/call`` runs as a task in the actor's nursery and
the message's reply is a :class:`Pending` handle the caller awaits outside the
actor. So a hundred concurrent calls share one session, a disconnect arrives
while a connect is in flight, and a slow tool never delays a fast one.

State changes made by those tasks are synchronous sections (no await between
reading and writing actor state), so they never interleave with a message.
After a crash the supervisor restarts the actor from the store: its
configuration is intact, and if it was connected it reconnects at once.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Generic, TypeVar

import attrs
import trio

from actors import Actor

from ..clock import Clock
from ..errors import SvcError, ValidationFailed
from ..events import EventLog
from ..tools import Tool, ToolRegistry, ToolResult
from .arguments import repair_arguments
from .auth import AuthChallenge, AuthLedger, find_challenge, pending_text, required_text
from .client import BadResponse, LinkError, LinkLost, McpLink, RpcError, SessionExpired, run_link
from .endpoint import header_values, resolve_headers, scrub_values
from .errors import (
    McpCallFailed,
    McpCallTimeout,
    McpConnectFailed,
    McpConnectionLost,
    McpDisabled,
    McpNotConnected,
    McpRefreshFailed,
    McpToolNotAllowed,
    McpToolNotFound,
)
from .naming import assign_ids, server_prefix, slug
from .records import CachedTool, ConnectorConfig, ConnectorSnapshot, ConnectorState
from .repository import McpRepository
from .results import to_tool_result
from .schemas import normalize_input_schema, schema_hash

log = logging.getLogger("svc.mcp")

T = TypeVar("T")
TOPIC = "mcp"

# Process-wide, so a restarted incarnation's writes are newer than its predecessor's
# (the store's counter is reset at engine start).
_WRITE_VERSIONS = itertools.count(1)


# ---------------------------------------------------------------------- messages
@attrs.frozen
class Caller:
    """Who is calling a tool: routes auth events to the right session stream."""

    session_id: str | None = None
    run_id: str | None = None
    message_id: str | None = None
    call_id: str | None = None


@attrs.frozen
class Connect:
    source: str = "api"


@attrs.frozen
class Refresh:
    source: str = "api"


@attrs.frozen
class Disconnect:
    reason: str = "disconnected"


@attrs.frozen
class Reconfigure:
    config: ConnectorConfig


@attrs.frozen
class CallTool:
    tool: str
    """The remote tool name, its slug or its ``mcp.<server>.<tool>`` ID."""
    arguments: Mapping[str, Any]
    caller: Caller = Caller()


@attrs.frozen
class GetSnapshot:
    pass


@attrs.frozen
class DeleteConnector:
    pass


@attrs.frozen
class CloseSession:
    """Engine shutdown: end the session politely (``DELETE``) without changing the configuration."""


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
        self._value: T | None = None
        self._error: BaseException | None = None

    def resolve(self, value: T) -> None:
        if not self.done.is_set():
            self._value = value
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
        return self._value  # type: ignore[return-value]


@attrs.frozen
class ConnectOutcome:
    """A successful connect or refresh."""

    count: int
    """Tools now registered (discovered and allowed)."""
    discovered: int
    changed: bool


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


@attrs.define(eq=False)
class _Discovery:
    kind: str
    """connect | refresh | reconnect"""
    source: str
    pending: Pending[ConnectOutcome]
    generation: int
    opened: McpLink | None = None


# ---------------------------------------------------------------------- the actor
class ConnectorActor(Actor):
    mailbox_size = 4096

    def __init__(
        self, services: ConnectorServices, config: ConnectorConfig, state: ConnectorState
    ) -> None:
        self.s = services
        self.config = config
        self.state = state
        self.ledger = AuthLedger(services.auth_cooldown_ms(), state.pending_auth_by_tool)
        self.link: McpLink | None = None
        self.discovery: _Discovery | None = None
        self.generation = 0

    # ------------------------------------------------------------------ life
    async def started(self) -> None:
        if self.state.connected and self.config.enabled:
            # Rehydrated after a crash while connected: the session died with the
            # old incarnation, so open a new one; calls meanwhile wait for it.
            self._begin_discovery("reconnect", "restart")
        self._publish()

    async def receive(self, message: object) -> object:
        match message:
            case CallTool():
                return self._call(message)
            case Connect(source=source):
                return self._connect("connect", source)
            case Refresh(source=source):
                return self._connect("refresh", source)
            case Disconnect(reason=reason):
                return await self._disconnect(reason)
            case Reconfigure(config=config):
                return await self._reconfigure(config)
            case GetSnapshot():
                return self.snapshot()
            case DeleteConnector():
                return await self._delete()
            case CloseSession():
                return await self._close_session()
        raise ValidationFailed(f"connector actor cannot handle {type(message).__name__}")

    def snapshot(self) -> ConnectorSnapshot:
        return ConnectorSnapshot(self.config, self.state)

    @property
    def server(self) -> str:
        """The connector's name (the actor's own ``name`` is ``mcp/<server>``)."""
        return self.config.name

    # ------------------------------------------------------------------ connect / refresh
    def _connect(self, kind: str, source: str) -> Pending[ConnectOutcome]:
        if not self.config.enabled:
            self.state = attrs.evolve(self.state, last_error="MCP server is disabled")
            self._publish()
            failed: Pending[ConnectOutcome] = Pending()
            failed.fail(McpDisabled(f"MCP server `{self.server}` is disabled", name=self.server))
            return failed
        if self.discovery is not None:
            return self.discovery.pending
        return self._begin_discovery(kind, source).pending

    def _begin_discovery(self, kind: str, source: str) -> _Discovery:
        discovery = _Discovery(kind, source, Pending(shared=True), self.generation)
        self.discovery = discovery
        self.nursery.start_soon(self._discover, discovery)
        return discovery

    async def _discover(self, d: _Discovery) -> None:
        reuse = (
            self.link
            if (self.link is not None and self.link.alive and kind_reuses(d.kind))
            else None
        )
        error: BaseException | None = None
        tools: list[dict[str, Any]] = []
        link: McpLink | None = None
        with d.pending.scope:
            try:
                with trio.fail_after(self.s.connect_timeout_s()):
                    link = reuse or await self._open_link(d)
                    try:
                        tools = await link.list_tools()
                    except SessionExpired:
                        if reuse is None:
                            raise
                        # The server forgot the session we meant to reuse: one new session.
                        reuse.abort()
                        link = await self._open_link(d)
                        tools = await link.list_tools()
            except trio.TooSlowError:
                error = LinkError(f"no answer within {self.s.connect_timeout_s():g}s")
            except (LinkError, ValidationFailed) as exc:
                error = exc
        if self.discovery is d:
            self.discovery = None
        if d.pending.scope.cancelled_caught or d.generation != self.generation:
            # Superseded by a disconnect, reconfiguration or deletion: touch nothing.
            if d.opened is not None:
                d.opened.abort()
            d.pending.fail(
                McpNotConnected(
                    f"connecting MCP server `{self.server}` was cancelled", name=self.server
                )
            )
            return
        if error is not None or link is None:
            await self._discovery_failed(d, error or LinkError("no session"))
        else:
            await self._discovery_succeeded(d, link, tools)

    async def _open_link(self, d: _Discovery) -> McpLink:
        headers = resolve_headers(self.config.headers, self.s.environ())
        link: McpLink = await self.nursery.start(
            partial(
                run_link,
                self.config.transport,
                headers,
                on_lost=self._link_lost,
                on_tools_changed=self._tools_changed,
            )
        )
        d.opened = link
        return link

    async def _discovery_succeeded(
        self, d: _Discovery, link: McpLink, raw_tools: list[dict[str, Any]]
    ) -> None:
        if self.link is not None and self.link is not link:
            self._retire(self.link)
        self.link = link
        was_connected = self.state.connected
        now = self.s.clock.now_ms()
        cache = self._build_cache(raw_tools, now)
        previous = {(t.tool_name, t.schema_hash, t.description) for t in self.state.tool_cache}
        changed = previous != {(t.tool_name, t.schema_hash, t.description) for t in cache}
        self.ledger.clear()
        self.state = ConnectorState(
            connected=True,
            mcp_session_id=link.session_id,
            tool_cache=tuple(cache),
            tools_fetched_at_ms=now,
            server_info=link.server_info,
            protocol_version=link.protocol_version,
            updated_at_ms=now,
        )
        self._sync_registry()
        self._publish()
        count = len(self.snapshot().registered_tools())
        ids = {"name": self.server, "source": d.source}
        if d.kind == "connect" or not was_connected:
            self.s.events.publish(
                "mcp.server.connected",
                {
                    **ids,
                    "serverName": (link.server_info or {}).get("name"),
                    "status": "connected",
                    "protocolVersion": link.protocol_version,
                    "toolCount": count,
                },
                topic=TOPIC,
            )
        self.s.events.publish(
            "mcp.tools.updated",
            {
                **ids,
                "count": count,
                "discoveredCount": len(cache),
                "changed": changed,
            },
            topic=TOPIC,
        )
        await self._save()
        d.pending.resolve(ConnectOutcome(count=count, discovered=len(cache), changed=changed))

    async def _discovery_failed(self, d: _Discovery, error: BaseException) -> None:
        message = self._scrub(str(error) or type(error).__name__)
        challenge: AuthChallenge | None = None
        if isinstance(error, RpcError):
            challenge = self._scrubbed(
                find_challenge(
                    self.server, error.to_wire(), now_ms=self.s.clock.now_ms(), failed=True
                )
            )
            if challenge is not None:
                message = f"MCP server '{self.server}' requires authorization: {challenge.message}"
        if d.opened is not None and d.opened is not self.link:
            self._retire(d.opened, graceful=True)
        if self.link is not None:
            self._retire(self.link, graceful=True)
            self.link = None
        removed = self._clear_state(last_error=message, challenge=challenge)
        reason = {"connect": "connect_failed", "refresh": "refresh_failed"}.get(
            d.kind, "connection_lost"
        )
        self.s.events.publish(
            "mcp.server.disconnected",
            {
                "name": self.server,
                "reason": reason,
                "source": d.source,
                "removedToolCount": removed,
                "remainingToolCount": 0,
                "error": message,
            },
            topic=TOPIC,
        )
        await self._save()
        failure_type = McpRefreshFailed if d.kind == "refresh" else McpConnectFailed
        d.pending.fail(
            failure_type(
                message,
                name=self.server,
                pendingAuth=challenge is not None,
                lastAuthChallenge=challenge.to_wire() if challenge else None,
                authorizationUrl=challenge.authorization_url if challenge else None,
                removedToolCount=removed,
            )
        )

    def _build_cache(self, raw_tools: list[dict[str, Any]], now: int) -> list[CachedTool]:
        named = [t for t in raw_tools if isinstance(t.get("name"), str) and t["name"]]
        ids = assign_ids(self.server, [t["name"] for t in named])
        cache = []
        for tool in named:
            schema = normalize_input_schema(tool.get("inputSchema"))
            description = (
                tool.get("description") or ""
            ).strip() or f"MCP tool {tool['name']} from {self.server}"
            cache.append(
                CachedTool(
                    tool_name=tool["name"],
                    tool_id=ids[tool["name"]],
                    description=description,
                    input_schema=schema,
                    fetched_at_ms=now,
                    schema_hash=schema_hash(schema),
                )
            )
        return cache

    # ------------------------------------------------------------------ losing the session
    def _link_lost(self, link: McpLink) -> None:
        """The SDK ended the session on its own (the server went away, an exchange broke)."""
        if link is not self.link:
            return
        self.link = None
        self.state = attrs.evolve(self.state, mcp_session_id=None)
        self._publish()
        if self.config.enabled and self.state.connected and self.discovery is None:
            # One immediate attempt at a new session; if it fails the connector is
            # disconnected (tools removed) and says why.
            self._begin_discovery("reconnect", "connection_lost")

    def _tools_changed(self, link: McpLink) -> None:
        """The server announced ``notifications/tools/list_changed``."""
        if link is self.link and self.discovery is None and self.state.connected:
            self._begin_discovery("refresh", "list_changed")

    def _retire(self, link: McpLink, *, graceful: bool = False) -> None:
        if graceful and link.alive:
            link.close()
            self.nursery.start_soon(link.wait_closed)
        else:
            link.abort()

    # ------------------------------------------------------------------ calls
    def _call(self, message: CallTool) -> Pending[ToolResult]:
        if not self.config.enabled:
            raise McpDisabled(f"MCP server `{self.server}` is disabled", name=self.server)
        tool = self._find_tool(message.tool)
        if tool is None and self.state.connected:
            raise McpToolNotFound(
                f"MCP server `{self.server}` has no tool `{message.tool}`",
                name=self.server,
                tool=message.tool,
            )
        if tool is not None:
            short = self._short_circuit(tool, message.caller)
            if short is not None:
                return Pending.resolved(short)
        pending: Pending[ToolResult] = Pending()
        self.nursery.start_soon(self._run_call, pending, message, tool)
        return pending

    def _find_tool(self, wanted: str) -> CachedTool | None:
        """By remote name or tool ID; then ignoring case; then by slug (``search_issues``)."""
        cache = self.state.tool_cache
        # The exact match first, without building anything: it is every call's path.
        found = next((t for t in cache if wanted == t.tool_name or wanted == t.tool_id), None)
        if found is not None:
            return found
        lowered = wanted.lower()
        found = next(
            (t for t in cache if lowered == t.tool_name.lower() or lowered == t.tool_id), None
        )
        if found is not None:
            return found
        bare = server_prefix(self.server) + slug(wanted)
        return next((t for t in cache if t.tool_id == bare), None)

    def _check_allowed(self, tool: CachedTool) -> None:
        if not self.snapshot().allows(tool):
            raise McpToolNotAllowed(
                f"tool `{tool.tool_id}` is not in the allowed_tools of MCP server `{self.server}`",
                name=self.server,
                tool=tool.tool_id,
            )

    def _short_circuit(self, tool: CachedTool, caller: Caller) -> ToolResult | None:
        """The cooldown answer for a tool waiting for authorization; None lets the call go out."""
        self._check_allowed(tool)
        now = self.s.clock.now_ms()
        remaining = self.ledger.remaining_ms(tool.tool_name, now)
        entry = self.ledger.entry(tool.tool_name)
        if remaining is None or entry is None:
            if self.ledger.probe(tool.tool_name, now):
                self._store_ledger()
                self.nursery.start_soon(self._save)
            return None
        auth = {
            "required": True,
            "pending": True,
            "blocked": True,
            "retryAfterMs": remaining,
            "challengeId": entry.challenge_id,
            "tool": tool.tool_name,
            "authorizationUrl": entry.authorization_url,
            "message": entry.message,
            "status": entry.status,
        }
        self._auth_event("mcp.auth.pending", tool, caller, auth)
        return ToolResult(
            pending_text(tool.tool_id, entry, remaining),
            {"server": self.server, "tool": tool.tool_name, "mcpAuth": auth},
        )

    async def _run_call(
        self, pending: Pending[ToolResult], message: CallTool, tool: CachedTool | None
    ) -> None:
        with pending.scope:
            pending.scope.deadline = trio.current_time() + self.s.call_timeout_s()
            try:
                pending.resolve(await self._call_through(message, tool))
            except SvcError as exc:
                pending.fail(exc)
            except Exception as exc:
                log.exception("mcp call to %s failed unexpectedly", self.server)
                pending.fail(
                    McpCallFailed(
                        f"calling `{message.tool}` failed: {type(exc).__name__}", name=self.server
                    )
                )
        if pending.scope.cancelled_caught:
            pending.fail(
                McpCallTimeout(
                    f"MCP server `{self.server}` did not answer `{message.tool}` within {self.s.call_timeout_s():g}s",
                    name=self.server,
                    tool=message.tool,
                )
            )

    async def _call_through(self, message: CallTool, tool: CachedTool | None) -> ToolResult:
        link = await self._ready_link()
        if tool is None:
            # Not known before connecting: resolve and check it now.
            tool = self._find_tool(message.tool)
            if tool is None:
                raise McpToolNotFound(
                    f"MCP server `{self.server}` has no tool `{message.tool}`",
                    name=self.server,
                    tool=message.tool,
                )
            short = self._short_circuit(tool, message.caller)
            if short is not None:
                return short
        arguments = repair_arguments(tool.input_schema, message.arguments)
        try:
            try:
                raw = await link.call_tool(tool.tool_name, arguments)
            except SessionExpired:
                # HTTP 404 to our session id: the server forgot it, and did not run
                # the call. A new session, then the same call once more.
                link = await self._renew(link)
                raw = await link.call_tool(tool.tool_name, arguments)
        except (LinkLost, SessionExpired) as exc:
            raise McpConnectionLost(
                self._scrub(f"the connection to MCP server `{self.server}` was lost: {exc}"),
                name=self.server,
                tool=tool.tool_id,
            ) from None
        except RpcError as exc:
            challenge = self._scrubbed(
                find_challenge(
                    tool.tool_name, exc.to_wire(), now_ms=self.s.clock.now_ms(), failed=True
                )
            )
            if challenge is not None:
                return await self._challenged(tool, challenge, message.caller)
            raise McpCallFailed(
                self._scrub(
                    f"MCP server `{self.server}` refused `{tool.tool_name}`: {exc.message}"
                ),
                name=self.server,
                tool=tool.tool_id,
                rpcCode=exc.code,
            ) from None
        except BadResponse as exc:
            raise McpCallFailed(
                self._scrub(f"MCP server `{self.server}` answered `{tool.tool_name}` badly: {exc}"),
                name=self.server,
                tool=tool.tool_id,
            ) from None
        challenge = self._scrubbed(
            find_challenge(
                tool.tool_name, raw, now_ms=self.s.clock.now_ms(), failed=bool(raw.get("isError"))
            )
        )
        if challenge is not None:
            return await self._challenged(tool, challenge, message.caller)
        await self._authorized(tool)
        return to_tool_result(
            self.server, tool.tool_name, raw, tool_id=tool.tool_id, scrub=self._scrub
        )

    async def _ready_link(self) -> McpLink:
        """The live session, connecting (or joining a connect in flight) when there is none."""
        for _ in range(2):
            link = self.link
            if link is not None and link.alive and self.state.connected:
                return link
            if not self.config.enabled:
                raise McpDisabled(f"MCP server `{self.server}` is disabled", name=self.server)
            discovery = self.discovery or self._begin_discovery(
                "reconnect" if self.state.connected else "connect", "call"
            )
            try:
                await discovery.pending.wait()
            except SvcError as exc:
                raise McpNotConnected(
                    f"MCP server `{self.server}` is not connected: {exc.message}", name=self.server
                ) from None
        raise McpNotConnected(f"MCP server `{self.server}` is not connected", name=self.server)

    async def _renew(self, expired: McpLink) -> McpLink:
        if self.link is expired:
            # No DELETE: the server has already forgotten this session.
            expired.abort()
            self.link = None
            self.state = attrs.evolve(self.state, mcp_session_id=None)
            self._publish()
        return await self._ready_link()

    # ------------------------------------------------------------------ secrets
    def _scrub(self, text: str) -> str:
        """Server-supplied error text without this connector's header values (a server may echo them)."""
        return scrub_values(text, header_values(self.config.headers, self.s.environ()))

    def _scrubbed(self, challenge: AuthChallenge | None) -> AuthChallenge | None:
        if challenge is None:
            return None
        return attrs.evolve(challenge, message=self._scrub(challenge.message))

    # ------------------------------------------------------------------ authorization
    async def _challenged(
        self, tool: CachedTool, challenge: AuthChallenge, caller: Caller
    ) -> ToolResult:
        now = self.s.clock.now_ms()
        entry = self.ledger.challenged(challenge, now)
        self.state = attrs.evolve(self.state, last_auth_challenge=challenge, last_error=None)
        self._store_ledger()
        # Stored before the caller hears of it: a restarted connector keeps the cooldown.
        await self._save()
        auth = {
            "required": True,
            "pending": False,
            "blocked": False,
            "challengeId": entry.challenge_id,
            "tool": tool.tool_name,
            "authorizationUrl": challenge.authorization_url,
            "message": challenge.message,
            "status": challenge.status,
        }
        self._auth_event("mcp.auth.required", tool, caller, auth)
        return ToolResult(
            required_text(tool.tool_id, challenge),
            {"server": self.server, "tool": tool.tool_name, "mcpAuth": auth},
        )

    async def _authorized(self, tool: CachedTool) -> None:
        """A call went through without a challenge: the tool is no longer waiting."""
        cleared = self.ledger.cleared(tool.tool_name)
        last = self.state.last_auth_challenge
        if last is not None and last.tool_name.lower() == tool.tool_name.lower():
            self.state = attrs.evolve(self.state, last_auth_challenge=None)
            cleared = True
        if cleared:
            self._store_ledger()
            await self._save()

    def _store_ledger(self) -> None:
        """Copy the ledger into the state and the read model (the caller persists it)."""
        self.state = attrs.evolve(
            self.state,
            pending_auth_by_tool=dict(self.ledger.pending),
            updated_at_ms=self.s.clock.now_ms(),
        )
        self._publish()

    def _auth_event(
        self, type: str, tool: CachedTool, caller: Caller, auth: Mapping[str, Any]
    ) -> None:
        properties: dict[str, Any] = {
            "tool": tool.tool_id,
            "server": self.server,
            "remoteTool": tool.tool_name,
            "authorizationUrl": auth["authorizationUrl"],
            "message": auth["message"],
            "challengeId": auth["challengeId"],
            "pending": auth["pending"],
            "blocked": auth["blocked"],
        }
        if "retryAfterMs" in auth:
            properties["retryAfterMs"] = auth["retryAfterMs"]
        for key, value in (
            ("sessionID", caller.session_id),
            ("runID", caller.run_id),
            ("messageID", caller.message_id),
            ("callID", caller.call_id),
        ):
            if value is not None:
                properties[key] = value
        self.s.events.publish(type, properties, topic=TOPIC)

    # ------------------------------------------------------------------ lifecycle messages
    async def _disconnect(self, reason: str) -> dict[str, Any]:
        was_connected = self.state.connected or self.link is not None
        self._drop_session()
        removed = self._clear_state(last_error=None)
        await self._save()
        if was_connected or removed:
            self.s.events.publish(
                "mcp.server.disconnected",
                {
                    "name": self.server,
                    "reason": reason,
                    "removedToolCount": removed,
                    "remainingToolCount": 0,
                },
                topic=TOPIC,
            )
        return {"ok": True, "removedToolCount": removed}

    def _drop_session(self) -> McpLink | None:
        """Cancel any discovery in flight and start ending the session (``DELETE``); returns its link."""
        self.generation += 1
        if self.discovery is not None:
            self.discovery.pending.scope.cancel()
            self.discovery = None
        link, self.link = self.link, None
        if link is not None:
            self._retire(link, graceful=True)
        return link

    def _clear_state(
        self, *, last_error: str | None, challenge: AuthChallenge | None = None
    ) -> int:
        """Back to "not connected": no session, no cache, no pending challenges; tools unregistered."""
        self.ledger.clear()
        self.state = attrs.evolve(
            self.state.disconnected(last_error=last_error, now_ms=self.s.clock.now_ms()),
            last_auth_challenge=challenge,
        )
        removed = self._sync_registry()
        self._publish()
        return removed

    async def _reconfigure(self, config: ConnectorConfig) -> dict[str, Any]:
        old = self.config
        self.config = config
        await self.s.repo.save_config(config)
        if not config.enabled and old.enabled:
            result = await self._disconnect("disabled")
            self.s.events.publish(
                "mcp.server.updated", {"name": self.server, "enabled": False}, topic=TOPIC
            )
            return {"changed": True, **result}
        if not old.same_identity(config) and (self.state.connected or self.link is not None):
            # New endpoint or credentials: the old session and tools belong to the old identity.
            result = await self._disconnect("reconfigured")
            self.s.events.publish(
                "mcp.server.updated", {"name": self.server, "enabled": config.enabled}, topic=TOPIC
            )
            return {"changed": True, **result}
        before = {t.tool_id for t in self.snapshot().registered_tools()}
        self._sync_registry()
        self._publish()
        after = self.snapshot().registered_tools()
        self.s.events.publish(
            "mcp.server.updated", {"name": self.server, "enabled": config.enabled}, topic=TOPIC
        )
        if self.state.connected and config.enabled and before != {t.tool_id for t in after}:
            self.s.events.publish(
                "mcp.tools.updated",
                {
                    "name": self.server,
                    "source": "allowed_tools",
                    "count": len(after),
                    "discoveredCount": len(self.state.tool_cache),
                    "changed": True,
                },
                topic=TOPIC,
            )
        return {"changed": _settings_of(config) != _settings_of(old), "removedToolCount": 0}

    async def _delete(self) -> dict[str, Any]:
        link = self._drop_session()
        removed = self._clear_state(last_error=None)
        await self.s.repo.delete(self.server)
        self.s.events.publish(
            "mcp.server.deleted", {"name": self.server, "removedToolCount": removed}, topic=TOPIC
        )
        if link is not None:
            # Stopping cancels the nursery, DELETE included: let it finish first (bounded).
            await link.wait_closed()
        self.stop()
        return {"ok": True, "removedToolCount": removed}

    async def _close_session(self) -> bool:
        link = self.link
        if link is None:
            return False
        self.generation += 1
        self.link = None
        link.close()
        await link.wait_closed()
        return True

    # ------------------------------------------------------------------ registry, read model, store
    def _sync_registry(self) -> int:
        """Make the registry hold exactly this connector's usable, allowed tools; returns how many went."""
        prefix = server_prefix(self.server)
        removed = self.s.registry.unregister_prefix(prefix)
        wanted = self.snapshot().registered_tools()
        for tool in wanted:
            self.s.registry.register(self.s.make_tool(self.server, tool), replace=True)
        kept = {t.tool_id for t in wanted}
        return len([n for n in removed if n not in kept])

    def _publish(self) -> None:
        self.s.publish(self.snapshot())

    async def _save(self) -> None:
        # The version is taken with the state, synchronously: of two writes racing
        # to the store, the one holding the newer state wins.
        await self.s.repo.save_state(self.server, self.state, version=next(_WRITE_VERSIONS))


def _settings_of(config: ConnectorConfig) -> ConnectorConfig:
    """The configuration without its timestamps (what "changed" compares)."""
    return attrs.evolve(config, created_at_ms=0, updated_at_ms=0)


def kind_reuses(kind: str) -> bool:
    """Connect and refresh list tools over a live session; a reconnect always opens a new one."""
    return kind in ("connect", "refresh")


__all__ = [
    "CallTool",
    "Caller",
    "CloseSession",
    "Connect",
    "ConnectOutcome",
    "ConnectorActor",
    "ConnectorServices",
    "DeleteConnector",
    "Disconnect",
    "GetSnapshot",
    "Pending",
    "Reconfigure",
    "Refresh",
]
