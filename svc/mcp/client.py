"""The MCP client: one Streamable HTTP session with one server, through the official SDK.

The SDK (``mcp.ClientSession`` over ``streamable_http_client``) speaks the
protocol: ``initialize``, the ``notifications/initialized`` notification,
``tools/list`` and ``tools/call``, the ``Mcp-Session-Id`` and
``MCP-Protocol-Version`` headers, JSON or SSE responses, and a ``DELETE`` of
the session when it is closed gracefully. This module adds what the SDK leaves
to its caller:

* tool discovery across every ``nextCursor`` page (with a page cap, and a
  repeated cursor treated as a broken server);
* telling an *expired session* (HTTP 404 to a request carrying our session id)
  from any other error, so the connector can initialise a new session once and
  retry (:class:`SessionExpired`);
* telling a *lost connection* from a JSON-RPC error: the SDK ends the whole
  session when any request's HTTP exchange fails, so every call in flight sees
  "Connection closed"; :class:`LinkLost` carries the underlying cause.

A session lives in a task (:func:`run_link`) that holds the SDK's context
managers open; many tasks may call through one :class:`McpLink` concurrently.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import attrs
import trio
from pydantic import ValidationError

if TYPE_CHECKING:
    import httpx2
    from mcp import ClientSession

from .._version import __version__

log = logging.getLogger("svc.mcp")

MAX_PAGES = 100
"""tools/list pages followed before the listing is considered endless."""
LOST_GRACE_S = 5.0
"""How long a call that saw "Connection closed" waits to learn why the session ended."""
CLOSE_GRACE_S = 5.0
"""Bound on a graceful close (the DELETE of the session)."""
CONNECT_TIMEOUT_S = 10.0
KEEPALIVE_EXPIRY_S = 1.5
"""Idle pooled connections are dropped after this long, below the servers' own idle timeouts
(uvicorn, hypercorn, Node: 5 s; gunicorn: 2 s). Reusing a connection the server is closing at that
very moment fails the request, and the SDK then ends the whole session, failing every call in
flight."""


@functools.cache
def _sdk() -> SimpleNamespace:
    """The SDK's modules, imported on first use.

    Importing them costs more than all the rest of the engine's start-up, and an
    engine with no MCP connector never needs them; so they load with the first
    session (or the first failure to describe), not with the engine.
    """
    import httpx2
    import mcp_types
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    return SimpleNamespace(
        httpx2=httpx2,
        types=mcp_types,
        ClientSession=ClientSession,
        MCPError=MCPError,
        streamable_http_client=streamable_http_client,
        CONNECTION_CLOSED=mcp_types.CONNECTION_CLOSED,
        client_info=mcp_types.Implementation(name="svc-engine", version=__version__),
    )


class LinkError(Exception):
    """Base of the errors this module raises."""


class LinkFailed(LinkError):
    """The session could not be opened (connection refused, HTTP error, bad handshake ...)."""


class RpcError(LinkError):
    """The server answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            wire["data"] = self.data
        return wire


class SessionExpired(LinkError):
    """The server no longer knows our session (HTTP 404 to our Mcp-Session-Id)."""


class LinkLost(LinkError):
    """The session ended under the request (the server went away or an exchange failed)."""


class BadResponse(LinkError):
    """The server's answer does not conform to the protocol."""


@attrs.define(eq=False)
class McpLink:
    """One live session. Obtain it with ``await nursery.start(run_link, ...)``."""

    url: str
    session: ClientSession | None = None
    session_id: str | None = None
    protocol_version: str | None = None
    server_info: dict[str, Any] | None = None
    capabilities: dict[str, Any] | None = None
    """What the server announced in ``initialize`` (``tools``, ``resources`` ...)."""
    expired: bool = False
    """A request carrying our session id was answered 404: the server forgot the session."""
    failure: BaseException | None = None
    """Why the session ended on its own (None after a graceful close)."""
    http_status: int | None = None
    """The last HTTP error status the server answered with (for a readable failure)."""
    closed: trio.Event = attrs.field(factory=trio.Event)
    _close: trio.Event = attrs.field(factory=trio.Event)
    _scope: trio.CancelScope = attrs.field(factory=trio.CancelScope)

    @property
    def alive(self) -> bool:
        return not (
            self.closed.is_set() or self._close.is_set() or self.expired or self.failure is not None
        )

    def describe_failure(self) -> str:
        return describe(self.failure) if self.failure is not None else "the session was closed"

    # ------------------------------------------------------------------ requests
    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists, following ``nextCursor`` across pages."""
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = (
                _sdk().types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            )
            page = await self._request(functools.partial(self._list_page, params))
            tools.extend(
                t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools
            )
            cursor = page.next_cursor
            if not cursor:
                return tools
            if cursor in seen:
                raise BadResponse(f"tools/list repeated the cursor {cursor!r}")
            seen.add(cursor)
        raise BadResponse(f"tools/list did not end within {MAX_PAGES} pages")

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The raw ``tools/call`` result (camelCase keys, as on the wire)."""
        result = await self._request(lambda: self._session().call_tool(name, dict(arguments)))
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    async def list_resources(self) -> list[dict[str, Any]]:
        """Every resource the server lists (``resources/list``), across ``nextCursor`` pages."""
        resources: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = (
                _sdk().types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            )
            page = await self._request(functools.partial(self._resources_page, params))
            resources.extend(
                r.model_dump(by_alias=True, mode="json", exclude_none=True) for r in page.resources
            )
            cursor = page.next_cursor
            if not cursor:
                return resources
            if cursor in seen:
                raise BadResponse(f"resources/list repeated the cursor {cursor!r}")
            seen.add(cursor)
        raise BadResponse(f"resources/list did not end within {MAX_PAGES} pages")

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """The raw ``resources/read`` result (``contents``: text or base64 blobs)."""
        result = await self._request(lambda: self._session().read_resource(uri))
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    @property
    def supports_resources(self) -> bool | None:
        """Whether the server announced the resources capability (None: not initialised)."""
        return self.capabilities.get("resources") is not None if self.capabilities else None

    def _resources_page(self, params: Any) -> Awaitable[Any]:
        return self._session().list_resources(params=params)

    def _list_page(self, params: Any) -> Awaitable[Any]:
        return self._session().list_tools(params=params)

    def _session(self) -> ClientSession:
        if self.session is None or not self.alive:
            raise LinkLost(self.describe_failure())
        return self.session

    async def _request(self, send: Callable[[], Any]) -> Any:
        sdk = _sdk()
        try:
            return await send()
        except sdk.MCPError as exc:
            if self.expired:
                raise SessionExpired(exc.message) from None
            if exc.code == sdk.CONNECTION_CLOSED:
                # The SDK ended the session; its holder task records why.
                with trio.move_on_after(LOST_GRACE_S):
                    await self.closed.wait()
                if self.closed.is_set():
                    raise LinkLost(self.describe_failure()) from None
            raise RpcError(exc.code, exc.message, exc.data) from None
        except ValidationError as exc:
            raise BadResponse(f"invalid response: {exc.errors()[0].get('msg', exc)}") from None
        except RuntimeError as exc:
            # The SDK's own checks (structured output not matching outputSchema ...).
            raise BadResponse(str(exc)) from None

    # ------------------------------------------------------------------ ending
    def close(self) -> None:
        """End the session gracefully: the SDK sends ``DELETE`` with our session id."""
        self._close.set()

    def abort(self) -> None:
        """End the session at once, without telling the server (it is gone or forgot us)."""
        self._close.set()
        self._scope.cancel()

    async def wait_closed(self, grace: float = CLOSE_GRACE_S) -> None:
        """Wait for the session to end; cancel it if it takes longer than ``grace``."""
        with trio.move_on_after(grace):
            await self.closed.wait()
        if not self.closed.is_set():
            self._scope.cancel()
            await self.closed.wait()

    # ------------------------------------------------------------------ observing
    async def _observe(self, response: httpx2.Response) -> None:
        session_id = response.headers.get("mcp-session-id")
        if session_id:
            self.session_id = session_id
        if response.status_code >= 400:
            self.http_status = response.status_code
        sent = response.request.headers.get("mcp-session-id")
        if response.status_code == 404 and sent and sent == self.session_id:
            self.expired = True


async def run_link(
    url: str,
    headers: Mapping[str, str],
    *,
    on_lost: Callable[[McpLink], None],
    on_tools_changed: Callable[[McpLink], None] | None = None,
    auth: Any = None,
    task_status: trio.TaskStatus[McpLink] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Open a session (``initialize`` + ``notifications/initialized``) and hold it open.

    ``task_status.started(link)`` once initialised; a failure before that raises
    :class:`LinkFailed`/:class:`RpcError` to the starter. Afterwards the task
    never raises an Exception: when the SDK ends the session on its own, the
    cause is stored in ``link.failure`` and ``on_lost(link)`` is called.
    ``link.close()`` ends it gracefully (``DELETE``), ``link.abort()`` at once.
    ``auth`` is an ``httpx2`` auth (OAuth, svc/mcp/oauth.py) for every request.
    """
    sdk = _sdk()
    httpx2 = sdk.httpx2
    link = McpLink(url)
    started = False

    async def on_message(message: Any) -> None:
        if (
            isinstance(message, sdk.types.ToolListChangedNotification)
            and on_tools_changed is not None
        ):
            on_tools_changed(link)

    try:
        with link._scope:
            async with (
                httpx2.AsyncClient(
                    headers=dict(headers),
                    # No read timeout: a tool may think for minutes, and the SDK
                    # ends the whole session on any failed exchange; each call is
                    # bounded by the connector's own deadline instead.
                    timeout=httpx2.Timeout(CONNECT_TIMEOUT_S, read=None, pool=None),
                    limits=httpx2.Limits(
                        max_connections=512,
                        max_keepalive_connections=128,
                        keepalive_expiry=KEEPALIVE_EXPIRY_S,
                    ),
                    event_hooks={"response": [link._observe]},
                    auth=auth,
                ) as http,
                sdk.streamable_http_client(url, http_client=http) as (read, write),
                sdk.ClientSession(
                    read, write, client_info=sdk.client_info, message_handler=on_message
                ) as session,
            ):
                link.session = session
                result = await session.initialize()
                link.protocol_version = result.protocol_version
                link.server_info = result.server_info.model_dump(mode="json", exclude_none=True)
                link.capabilities = result.capabilities.model_dump(mode="json", exclude_none=True)
                started = True
                task_status.started(link)
                await link._close.wait()
    except BaseException as exc:
        if not isinstance(exc, Exception):
            # Cancelled from outside (the connector is stopping). Transport errors
            # that raced with it are noise now; only the cancellation travels on,
            # so the stop is not mistaken for a crash.
            if isinstance(exc, BaseExceptionGroup):
                cancelled, rest = exc.split(trio.Cancelled)
                if rest is not None:
                    log.debug("mcp session errors while stopping: %r", rest)
                if cancelled is not None:
                    raise cancelled from None
            raise
        cause = primary_error(exc)
        if not started:
            if (
                isinstance(cause, sdk.MCPError)
                and cause.data is None
                and link.http_status is not None
            ):
                # The SDK turns a bare HTTP error into a generic JSON-RPC error; the status says
                # more.
                raise LinkFailed(f"the MCP server answered HTTP {link.http_status}") from None
            if isinstance(cause, sdk.MCPError):
                raise RpcError(cause.code, cause.message, cause.data) from None
            raise LinkFailed(describe(cause)) from None
        link.failure = cause
        log.info("mcp session ended: %s", describe(cause), extra={"url": url})
    finally:
        link.closed.set()
    if started and link.failure is not None:
        on_lost(link)
    elif not started:
        # Aborted (cancelled) before the handshake finished.
        raise LinkFailed("the connection attempt was abandoned")


def primary_error(exc: BaseException) -> BaseException:
    """The most telling leaf of an exception group from the SDK's task groups."""
    sdk = _sdk()
    leaves = list(_leaves(exc))
    for kind in (sdk.MCPError, sdk.httpx2.HTTPError, OSError, LinkError):
        for leaf in leaves:
            if isinstance(leaf, kind):
                return leaf
    return leaves[0] if leaves else exc


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        out: list[BaseException] = []
        for inner in exc.exceptions:
            out.extend(_leaves(inner))
        return out
    return [exc]


def describe(exc: BaseException) -> str:
    """A one-line, secret-free description of a transport failure."""
    sdk = _sdk()
    httpx2 = sdk.httpx2
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"HTTP {exc.response.status_code} from the MCP server"
    if isinstance(exc, httpx2.ConnectError):
        return "the MCP server is unreachable (connection failed)"
    if isinstance(exc, httpx2.TimeoutException):
        return "the MCP server did not respond in time"
    if isinstance(exc, httpx2.RemoteProtocolError | httpx2.ReadError | httpx2.WriteError):
        return "the connection to the MCP server broke"
    if isinstance(exc, sdk.MCPError):
        return exc.message
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = [
    "BadResponse",
    "LinkError",
    "LinkFailed",
    "LinkLost",
    "McpLink",
    "RpcError",
    "SessionExpired",
    "describe",
    "primary_error",
    "run_link",
]
