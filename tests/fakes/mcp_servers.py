"""Real MCP servers for tests, built with the official ``mcp`` SDK and served on loopback.

Each server is an SDK server (``MCPServer`` or the low-level ``Server``) behind the
SDK's own Streamable HTTP session manager, served by hypercorn on trio at
``http://127.0.0.1:<port>/mcp``. A thin ASGI wrapper records every HTTP request
(method, headers, JSON-RPC body) and lets a test misbehave the server on purpose::

    async with open_mcp_server(workbench_server()) as server:
        ...                        # point a connector at server.url
        server.rpc_methods()       # ["initialize", "notifications/initialized", "tools/list", ...]
        server.expire_sessions()   # every known Mcp-Session-Id now answers 404 (SDK behaviour)
        await server.kill()        # the process "dies": connections drop, the port closes
        await server.revive()      # serving again on the same port, with no sessions

The builders:

* :func:`workbench_server`: an ``MCPServer`` with two resources (``docs://readme``,
  ``docs://changelog``) and several tools (``add``, read-only, with
  structured output, ``echo``, ``fail`` raising a tool error, ``hold`` that waits
  for the test to open a gate, ``grow`` that adds a tool and sends
  ``notifications/tools/list_changed``);
* :func:`paged_server`: a low-level ``Server`` whose ``tools/list`` is paginated
  with ``nextCursor``;
* :func:`strict_server`: schemas with ``required`` names and
  ``additionalProperties: false``; tools echo the arguments they received;
* :func:`auth_server`: tools that answer with an authorization-URL challenge
  (in a tool result or a JSON-RPC error) until the test calls ``authorize()``;
  with ``guard_listing`` even ``tools/list`` is challenged (a discovery-time gate);
* :class:`EchoingServer`: a careless server quoting the credential it received
  in its errors (the engine must not pass it on).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

import attrs
import hypercorn.config
import hypercorn.trio
import mcp_types as types
import trio
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from tests.fakes._asgi import serve_lifespan

log = logging.getLogger("tests.fakes.mcp")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

PATH = "/mcp"


@attrs.frozen
class McpRequest:
    """One HTTP request the server received."""

    method: str
    headers: dict[str, str]
    """Lower-cased names."""
    body: Any
    """The JSON-RPC message (or batch) of a POST; None for GET and DELETE."""
    status: int | None = None
    """The status the server answered with (set once the response started)."""

    @property
    def rpc_method(self) -> str | None:
        return self.body.get("method") if isinstance(self.body, dict) else None

    @property
    def session_id(self) -> str | None:
        return self.headers.get("mcp-session-id")


class FakeMcpServer:
    """The wrapper around one SDK server; see the module docstring."""

    def __init__(self, server: Server[Any] | MCPServer, *, json_response: bool = False) -> None:
        self.server = server
        self.json_response = json_response
        self.url = ""
        self.port = 0
        self.requests: list[McpRequest] = []
        self.sessions_opened = 0
        self._inner: Any = None
        self._stop_inner: trio.Event | None = None
        self._nursery: trio.Nursery | None = None
        self._serve_scope: trio.CancelScope | None = None
        self._serving_done: trio.Event | None = None
        self._waiters: list[tuple[Callable[[], bool], trio.Event]] = []

    # ------------------------------------------------------------------ observing
    def rpc_methods(self) -> list[str]:
        """The JSON-RPC methods of every POST, in arrival order."""
        return [r.rpc_method for r in self.requests if r.rpc_method is not None]

    def posts(self, method: str) -> list[McpRequest]:
        return [r for r in self.requests if r.rpc_method == method]

    def calls(self) -> list[dict[str, Any]]:
        """The ``params`` of every ``tools/call``."""
        return [r.body.get("params") or {} for r in self.posts("tools/call")]

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        """Return once ``predicate()`` holds (checked after every request)."""
        if predicate():
            return
        event = trio.Event()
        self._waiters.append((predicate, event))
        await event.wait()

    # ------------------------------------------------------------------ misbehaving
    def expire_sessions(self) -> None:
        """Forget every session: the SDK then answers 404 to each old Mcp-Session-Id."""
        assert self._nursery is not None
        self._start_generation(self._nursery)

    async def kill(self) -> None:
        """Stop serving at once: open connections are dropped and the port closes."""
        assert self._serve_scope is not None and self._serving_done is not None
        self._serve_scope.cancel()
        await self._serving_done.wait()

    async def revive(self) -> None:
        """Serve again on the same port, with a fresh session manager (no sessions)."""
        assert self._nursery is not None
        self._start_generation(self._nursery)
        await self._nursery.start(self._serve, f"127.0.0.1:{self.port}")

    # ------------------------------------------------------------------ serving
    def _start_generation(self, nursery: trio.Nursery) -> None:
        if self._stop_inner is not None:
            self._stop_inner.set()
        app = self.server.streamable_http_app(
            streamable_http_path=PATH, json_response=self.json_response
        )
        manager = self.server.session_manager
        stop = trio.Event()
        self._stop_inner = stop
        self._inner = app

        async def run_manager() -> None:
            async with manager.run():
                await stop.wait()

        nursery.start_soon(run_manager)

    async def _serve(
        self, bind: str, *, task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED
    ) -> None:
        config = hypercorn.config.Config()
        config.bind = [bind]
        config.accesslog = None
        config.errorlog = log
        config.graceful_timeout = 1.0
        done = trio.Event()
        self._serving_done = done
        try:
            with trio.CancelScope() as scope:
                self._serve_scope = scope
                await hypercorn.trio.serve(self._app, config, task_status=task_status)  # type: ignore[arg-type]
        finally:
            done.set()

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        raw = bytearray()
        if scope["method"] == "POST":
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                raw += message.get("body", b"")
                if not message.get("more_body", False):
                    break
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            headers[name.decode("latin-1").lower()] = value.decode("latin-1")
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        index = len(self.requests)
        self.requests.append(McpRequest(scope["method"], headers, body))
        if body is not None and isinstance(body, dict) and body.get("method") == "initialize":
            self.sessions_opened += 1
        replayed = False

        async def replay() -> Message:
            # The wrapper consumed the body; hand it to the SDK app once.
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(raw), "more_body": False}
            return await receive()

        async def record_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.requests[index] = attrs.evolve(self.requests[index], status=message["status"])
                self._wake()
            await send(message)

        self._wake()
        await self._inner(scope, replay, record_status)

    def _wake(self) -> None:
        remaining = []
        for predicate, event in self._waiters:
            if predicate():
                event.set()
            else:
                remaining.append((predicate, event))
        self._waiters = remaining


@asynccontextmanager
async def open_mcp_server(
    server: Server[Any] | MCPServer, *, json_response: bool = False
) -> AsyncIterator[FakeMcpServer]:
    """Serve ``server`` on a free loopback port until the block exits.

    ``fake.url`` ends in ``/mcp``."""
    fake = FakeMcpServer(server, json_response=json_response)
    async with trio.open_nursery() as nursery:
        fake._nursery = nursery
        fake._start_generation(nursery)
        binds = await nursery.start(fake._serve, "127.0.0.1:0")
        bind = binds[0]
        fake.url = bind + PATH
        fake.port = int(bind.rsplit(":", 1)[1])
        try:
            yield fake
        finally:
            nursery.cancel_scope.cancel()


# ---------------------------------------------------------------------- builders
class Forecast(BaseModel):
    city: str
    temperature_c: float


@attrs.define
class Gate:
    """Holds ``hold`` tool calls until the test opens it."""

    opened: trio.Event = attrs.field(factory=trio.Event)
    waiting: int = 0
    arrived: trio.Event = attrs.field(factory=trio.Event)

    def open(self) -> None:
        self.opened.set()


def workbench_server(gate: Gate | None = None) -> MCPServer:
    """A server with several ordinary tools (see the module docstring)."""
    server = MCPServer("workbench", version="1.0.0")
    held = gate or Gate()

    @server.tool(annotations=types.ToolAnnotations(readOnlyHint=True))
    def add(a: int, b: int) -> int:
        """Add two integers (read-only: the engine may send it again after a broken call)."""
        return a + b

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool()
    def forecast(city: str) -> Forecast:
        """A made-up weather forecast with structured output."""
        return Forecast(city=city, temperature_c=21.5)

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails with the given reason."""
        raise ToolError(f"cannot comply: {reason}")

    @server.tool(name="Search-Issues")
    def search_issues(query: str) -> str:
        """A tool whose name needs slugging."""
        return f"issues matching {query}"

    @server.tool()
    async def hold(tag: str) -> str:
        """Waits until the test opens the gate, then answers."""
        held.waiting += 1
        held.arrived.set()
        await held.opened.wait()
        return f"released {tag}"

    @server.tool()
    async def grow(name: str, ctx: Context) -> str:
        """Adds a tool called `name` and tells the client its tool list changed."""

        def grown(text: str) -> str:
            return f"{name}: {text}"

        server.add_tool(grown, name=name, description=f"Grown tool {name}")
        await ctx.request_context.session.send_tool_list_changed()
        return f"added {name}"

    @server.resource(
        "docs://readme",
        name="readme",
        description="What the workbench is",
        mime_type="text/markdown",
    )
    def readme() -> str:
        return "# Workbench\n\nTools for tests.\n"

    @server.resource("docs://changelog", name="changelog", mime_type="text/plain")
    def changelog() -> str:
        return "1.0.0: first release"

    server.gate = held  # type: ignore[attr-defined]
    return server


def paged_server(count: int = 7, page_size: int = 3) -> Server[Any]:
    """``count`` tools listed ``page_size`` per page; the cursor is the next index."""
    tools = [
        types.Tool(
            name=f"tool_{index:02d}",
            description=f"Tool number {index}",
            input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
        )
        for index in range(count)
    ]

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page_size
        return types.ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < count else None
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{params.name} ran")]
        )

    return Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)


STRICT_TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "list_id": {"type": "string"},
        "task_title": {"type": "string"},
        "priority": {"type": "integer"},
    },
    "required": ["list_id", "task_title"],
    "additionalProperties": False,
}


def strict_server() -> Server[Any]:
    """``create_task`` forbids additional properties; ``note_task`` allows them.

    Both echo their args."""
    loose = {**STRICT_TASK_SCHEMA}
    loose.pop("additionalProperties")
    tools = [
        types.Tool(
            name="create_task", description="Create a task", input_schema=STRICT_TASK_SCHEMA
        ),
        types.Tool(name="note_task", description="Note a task", input_schema=loose),
    ]

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = dict(params.arguments or {})
        schema = STRICT_TASK_SCHEMA if params.name == "create_task" else loose
        missing = [name for name in schema["required"] if name not in args]
        unknown = (
            [k for k in args if k not in schema["properties"]]
            if params.name == "create_task"
            else []
        )
        if missing or unknown:
            return types.CallToolResult(
                content=[
                    types.TextContent(
                        type="text", text=f"invalid arguments: missing={missing} unknown={unknown}"
                    )
                ],
                is_error=True,
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(args, sort_keys=True))],
            structured_content={"received": args},
        )

    return Server("strict", on_list_tools=list_tools, on_call_tool=call_tool)


AUTH_URL = "https://auth.example.test/authorize?client=svc"


class AuthServer:
    """State of :func:`auth_server`: which tools are authorized yet."""

    def __init__(self, *, guard_listing: bool = False) -> None:
        self.authorized = False
        self.guard_listing = guard_listing
        """When set, even ``tools/list`` answers with the challenge until authorized."""
        self.server = self._build()

    def authorize(self) -> None:
        self.authorized = True

    def _build(self) -> Server[Any]:
        tools = [
            types.Tool(
                name="Gmail_SendEmail",
                description="Send an email",
                input_schema={"type": "object", "properties": {"to": {"type": "string"}}},
            ),
            types.Tool(
                name="Drive_List",
                description="List files",
                input_schema={"type": "object", "properties": {}},
            ),
            types.Tool(
                name="Gmail_WhoAmI",
                description="Who am I",
                input_schema={"type": "object", "properties": {}},
            ),
        ]

        async def list_tools(
            ctx: Any, params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            if self.guard_listing and not self.authorized:
                raise MCPError(
                    -32001,
                    "Sign in to the gateway first",
                    data={"authorization_url": AUTH_URL + "&scope=gateway"},
                )
            return types.ListToolsResult(tools=tools)

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name == "Gmail_WhoAmI":
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text="ops-bot@example.test")]
                )
            if not self.authorized:
                if params.name == "Drive_List":
                    # The challenge in a JSON-RPC error, as some gateways send it.
                    raise MCPError(
                        -32001,
                        "Authorization required for Drive",
                        data={"authorization_url": AUTH_URL + "&scope=drive"},
                    )
                return types.CallToolResult(
                    content=[
                        types.TextContent(
                            type="text",
                            text=f"Grant Gmail access first. Authorize here: {AUTH_URL}",
                        )
                    ],
                    structured_content={
                        "authorization_url": AUTH_URL,
                        "message": "Grant Gmail access first.",
                    },
                )
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"{params.name} done")]
            )

        return Server("gateway", on_list_tools=list_tools, on_call_tool=call_tool)


def auth_server(*, guard_listing: bool = False) -> AuthServer:
    return AuthServer(guard_listing=guard_listing)


class EchoingServer:
    """A careless server that quotes the ``Authorization`` header it received in its errors."""

    def __init__(self) -> None:
        self.reject_listing = False
        """When set, ``tools/list`` fails with a JSON-RPC error quoting the header."""
        self.server = self._build()

    def _build(self) -> Server[Any]:
        tools = [
            types.Tool(
                name="whoami",
                description="Fails with an isError result quoting the credential",
                input_schema={"type": "object", "properties": {}},
            ),
            types.Tool(
                name="check",
                description="Fails with a JSON-RPC error quoting the credential",
                input_schema={"type": "object", "properties": {}},
            ),
        ]

        def credential(ctx: Any) -> str:
            request = getattr(ctx, "request", None)
            return request.headers.get("authorization", "") if request is not None else ""

        async def list_tools(
            ctx: Any, params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            if self.reject_listing:
                raise MCPError(-32000, f"credentials {credential(ctx)} are revoked")
            return types.ListToolsResult(tools=tools)

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name == "check":
                raise MCPError(-32000, f"invalid credentials: {credential(ctx)}")
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"token rejected: {credential(ctx)}")],
                structured_content={"sent": credential(ctx)},
                is_error=True,
            )

        return Server("echoing", on_list_tools=list_tools, on_call_tool=call_tool)


__all__ = [
    "AUTH_URL",
    "PATH",
    "STRICT_TASK_SCHEMA",
    "AuthServer",
    "EchoingServer",
    "FakeMcpServer",
    "Forecast",
    "Gate",
    "McpRequest",
    "auth_server",
    "open_mcp_server",
    "paged_server",
    "strict_server",
    "workbench_server",
]
