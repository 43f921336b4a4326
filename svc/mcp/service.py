"""The MCP facade: what routes, tools and other domains call (``engine.mcp``).

Reads (``GET /mcp``, ``/mcp/tools``, the catalog overlay, ``mcp_list``) come from
a read model every connector actor keeps current by handing over a snapshot
after each change, so listing never waits on an actor. Anything that changes a
connector or talks to its server is a message to its actor (``mcp/<name>``,
activated lazily and rehydrated from the store).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import httpx
import trio

from actors import ActorSystem

from ..clock import Clock
from ..entities import Ask, Entities, EntityKind
from ..errors import SvcError
from ..events import EventLog
from ..logs import REDACTED
from ..settings import Settings
from ..store import Store
from ..tools import ToolContext, ToolRegistry, ToolResult, normalize_patterns
from .errors import McpNameConflict, McpNotFound
from .inputs import ConnectorInput, ConnectorPatch, register_header_secrets
from .repository import McpRepository

if TYPE_CHECKING:
    from ..audit.decisions import DecisionSink
    from .capability import CapabilityRequestInput
    from .capability_requests import CapabilityRequests
    from .catalog import Catalog
    from .connector import ConnectorActor, ConnectorServices
    from .oauth import McpOAuth
    from .records import CachedTool, ConnectorConfig, ConnectorSnapshot, ConnectorState

# Imported on first use: a fresh engine connects nothing, so start-up loads neither the
# connector actor nor its client, records, catalog or checks (docs/architecture.md,
# "Start-up budget").

log = logging.getLogger("svc.mcp")

ACTOR_PREFIX = "mcp/"
ASK_TIMEOUT = 30.0

R = TypeVar("R")


class McpService:
    def __init__(
        self,
        *,
        store: Store,
        events: EventLog,
        clock: Clock,
        registry: ToolRegistry,
        actors: ActorSystem,
        settings: Callable[[], Settings],
        http: httpx.AsyncClient,
    ) -> None:
        self.repo = McpRepository(store)
        self.events = events
        self.clock = clock
        self.registry = registry
        self.actors = actors
        self.settings = settings
        self.http = http
        """The engine's shared client (used by ``mcp_debug``); sessions own their own."""
        self._views: dict[str, ConnectorSnapshot] = {}
        self._deleted: set[str] = set()
        self._lock = trio.Lock()
        self._catalog: Catalog | None = None
        self._capability_requests: CapabilityRequests | None = None
        self.decision_sink: DecisionSink | None = None
        """Told every capability decision (set by the incident monitor)."""
        self._connector_services: ConnectorServices | None = None
        """What every connector actor shares; built when the first one activates."""
        self.on_call: Callable[[str, float], None] | None = None
        """Told each ``tools/call``'s connector and latency in seconds (metrics, when on)."""
        self._store = store
        self._oauth: McpOAuth | None = None
        self.spawn_task: Callable[..., None] = _no_spawn
        """Runs a background task of the engine (set by the component)."""
        self.public_url: Callable[[], str | None] = lambda: None
        """The engine's HTTP URL (OAuth redirect URIs point at it; set by the component)."""

    # ------------------------------------------------------------------ lifecycle
    async def load(self) -> None:
        """At engine start: read every connector; nobody is connected yet."""
        await self.repo.reset_sessions()
        for config, state in await self.repo.load_all():
            register_header_secrets(config.headers)
            self._views[config.name] = _idle_snapshot(config, state)

    def install(self, entities: Entities) -> None:
        """Register lazy activation of ``mcp/<name>`` actors (under the connectors supervisor)."""
        self.entities = entities
        entities.register(
            EntityKind(
                ACTOR_PREFIX,
                "connectors",
                lambda name: McpNotFound(f"MCP server `{name}` is not configured", name=name),
                timeout=ASK_TIMEOUT,
            ),
            self._activate,
        )

    async def _activate(self, actor_name: str) -> ConnectorActor | None:
        from .connector import ConnectorActor

        row = await self.repo.get(actor_name[len(ACTOR_PREFIX) :])
        if row is None:
            return None
        config, state = row
        return ConnectorActor(self._services(), config, state)

    def _services(self) -> ConnectorServices:
        if self._connector_services is None:
            from .connector import ConnectorServices
            from .tools import McpTool

            self._connector_services = ConnectorServices(
                repo=self.repo,
                events=self.events,
                clock=self.clock,
                registry=self.registry,
                environ=lambda: self.settings().environ,
                make_tool=lambda server, cached: McpTool(self, server, cached),
                publish=self._publish,
                call_timeout_s=lambda: self.settings().mcp_call_timeout_ms / 1000,
                connect_timeout_s=lambda: self.settings().mcp_connect_timeout_ms / 1000,
                auth_cooldown_ms=lambda: self.settings().mcp_auth_cooldown_ms,
                oauth=lambda server, url: self.oauth().connector_auth(server, url),
            )
        return self._connector_services

    def _publish(self, snapshot: ConnectorSnapshot) -> None:
        if snapshot.name not in self._deleted:
            self._views[snapshot.name] = snapshot

    async def reconnect_enabled(self) -> None:
        """Connect every enabled connector, each with its own backoff (engine start)."""
        from .bootstrap import reconnect_enabled

        await reconnect_enabled(self)

    async def shutdown(self) -> None:
        """End every open MCP session politely (``DELETE``), within a bound."""
        from .bootstrap import close_sessions

        await close_sessions(
            self, [n[len(ACTOR_PREFIX) :] for n in self.actors.names(ACTOR_PREFIX)]
        )

    # ------------------------------------------------------------------ configuration
    async def add(self, body: ConnectorInput) -> ConnectorSnapshot:
        """Create a connector, or update the one with this name (``POST /mcp``)."""
        from .connector import Reconfigure
        from .endpoint import check_headers, check_name, check_transport
        from .naming import server_slug
        from .records import ConnectorConfig, ConnectorSnapshot, ConnectorState

        name = check_name(body.name)
        transport = check_transport(body.transport)
        headers = check_headers(body.headers)
        allowed = normalize_patterns(body.allowed_tools) if body.allowed_tools is not None else None
        async with self._lock:
            existing = self._views.get(name)
            clash = next(
                (
                    s.name
                    for s in self._views.values()
                    if s.name != name and server_slug(s.name) == server_slug(name)
                ),
                None,
            )
            if clash is not None:
                raise McpNameConflict(
                    f"MCP server `{clash}` already uses the tool prefix "
                    f"mcp.{server_slug(name)}.; choose another name",
                    field="name",
                    name=name,
                )
            now = self.clock.now_ms()
            if existing is not None:
                # A client that sends back what GET /mcp showed keeps the real value.
                headers = {
                    k: existing.config.headers.get(k, v) if v == REDACTED else v
                    for k, v in headers.items()
                }
            register_header_secrets(headers)
            config = ConnectorConfig(
                name=name,
                transport=transport,
                enabled=body.enabled,
                headers=headers,
                allowed_tools=allowed,
                created_at_ms=existing.config.created_at_ms if existing else now,
                updated_at_ms=now,
            )
            if existing is None:
                await self.repo.save_config(config)
                self._deleted.discard(name)
                self._views[name] = ConnectorSnapshot(config, ConnectorState(updated_at_ms=now))
                self.events.publish(
                    "mcp.server.updated",
                    {"name": name, "enabled": config.enabled, "created": True},
                    topic="mcp",
                )
            else:
                await self._ask(name, Reconfigure(config))
        return self.get(name)

    async def patch(
        self, name: str, patch: ConnectorPatch, *, clear_allowed_tools: bool = False
    ) -> dict[str, Any]:
        """``PATCH /mcp/{name}``: enable/disable and the allowlist. Enabling connects."""
        from .connector import Reconfigure

        current = self.get(name).config
        allowed: tuple[str, ...] | None = current.allowed_tools
        if clear_allowed_tools or patch.clear_allowed_tools:
            allowed = None
        elif patch.allowed_tools is not None:
            allowed = tuple(normalize_patterns(patch.allowed_tools))
        enabled = current.enabled if patch.enabled is None else patch.enabled
        config = attrs.evolve(
            current, enabled=enabled, allowed_tools=allowed, updated_at_ms=self.clock.now_ms()
        )
        result = await self._ask(name, Reconfigure(config))
        body: dict[str, Any] = {"ok": bool(result["changed"])}
        if enabled and not current.enabled:
            body["connect"] = await self.connect(name, source="enabled")
        return body

    async def delete(self, name: str) -> dict[str, Any]:
        from .connector import DeleteConnector

        self.get(name)
        async with self._lock:
            result = await self._ask(name, DeleteConnector())
            self._deleted.add(name)
            self._views.pop(name, None)
        return result

    # ------------------------------------------------------------------ lifecycle operations
    async def connect(self, name: str, *, source: str = "api") -> dict[str, Any]:
        """Run discovery; ``{ok, count, pendingAuth, lastAuthChallenge, authorizationUrl}``
        (never raises for an unreachable or refusing server: that is ``ok: false`` with the
        error)."""
        from .connector import Connect

        self.get(name)
        pending = await self._ask(name, Connect(source))
        try:
            outcome = await pending.wait()
        except SvcError as exc:
            return {"ok": False, "count": 0, **_auth_fields(exc), **exc.to_body()}
        return {
            "ok": True,
            "count": outcome.count,
            "discoveredCount": outcome.discovered,
            "pendingAuth": False,
            "lastAuthChallenge": None,
            "authorizationUrl": None,
        }

    async def refresh(self, name: str) -> dict[str, Any]:
        """Re-list the tools; raises McpRefreshFailed (with the auth fields) when that fails."""
        from .connector import Refresh

        self.get(name)
        pending = await self._ask(name, Refresh("api"))
        outcome = await pending.wait()
        return {
            "ok": True,
            "count": outcome.count,
            "discoveredCount": outcome.discovered,
            "changed": outcome.changed,
        }

    async def disconnect(self, name: str) -> dict[str, Any]:
        from .connector import Disconnect

        self.get(name)
        return await self._ask(name, Disconnect("disconnected"))

    async def call(
        self, server: str, tool: str, args: Mapping[str, Any], *, ctx: ToolContext | None = None
    ) -> ToolResult:
        """Call a tool of ``server`` by its remote name, slug or ``mcp.<server>.<tool>`` ID.

        Connects first if needed. Raises the MCP errors (McpToolError for an
        ``isError`` result, McpCallTimeout, McpConnectionLost ...); an authorization
        challenge is a result whose ``metadata["mcpAuth"]`` says so.
        """
        from .connector import CallTool, ToolCaller

        self.get(server)
        caller = ToolCaller()
        if ctx is not None:
            caller = ToolCaller(
                session_id=ctx.session_id,
                run_id=ctx.run_id,
                message_id=ctx.message_id,
                call_id=ctx.call_id,
            )
        began = trio.current_time()
        try:
            pending = await self._ask(server, CallTool(tool, dict(args), caller))
            return await pending.wait()
        finally:
            if self.on_call is not None:
                self.on_call(server, trio.current_time() - began)

    def oauth(self) -> McpOAuth:
        """OAuth flows and credentials of the connectors (svc/mcp/oauth.py)."""
        if self._oauth is None:
            # Imported on first use: most engines never authorize a connector.
            from .oauth import McpOAuth
            from .oauth_repository import McpOAuthRepository

            self._oauth = McpOAuth(self, McpOAuthRepository(self._store))
        return self._oauth

    async def resources(self) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """``GET /mcp/resources``: see :func:`.resources.list_all`."""
        from .resources import list_all

        return await list_all(self)

    async def read_resource(self, server: str, uri: str) -> dict[str, Any]:
        """``resources/read`` of ``uri`` through ``server``'s session (connecting if needed)."""
        from .resources import read

        return await read(self, server, uri)

    # ------------------------------------------------------------------ reads
    def snapshots(self) -> list[ConnectorSnapshot]:
        return [self._views[name] for name in sorted(self._views)]

    def snapshot(self, name: str) -> ConnectorSnapshot | None:
        """The connector's current snapshot, or None when none is configured."""
        return self._views.get(name)

    def get(self, name: str) -> ConnectorSnapshot:
        snapshot = self._views.get(name)
        if snapshot is None:
            raise McpNotFound(f"MCP server `{name}` is not configured", name=name)
        return snapshot

    def tools(self) -> list[dict[str, Any]]:
        """``GET /mcp/tools``: the callable tools of every enabled, connected connector."""
        rows = [_tool_row(s.name, t) for s in self.snapshots() for t in s.registered_tools()]
        return sorted(rows, key=lambda r: r["namespaced_name"])

    def inventory(self) -> dict[str, Any]:
        """The ``mcp_list`` snapshot: servers, their remote and registered tools, challenges."""
        from .inventory import inventory

        return inventory(self.snapshots())

    def catalog_toml(self, slug: str) -> str:
        """``GET /mcp/catalog/{slug}/toml``: the entry as a TOML snippet (404 if unknown)."""
        from .catalog_toml import entry_toml

        entry = self.load_catalog().find(slug)
        if entry is None:
            raise McpNotFound(f"the MCP catalog has no server `{slug}`", name=slug)
        return entry_toml(entry)

    def load_catalog(self) -> Catalog:
        if self._catalog is None:
            from .catalog import load_catalog

            self._catalog = load_catalog(self.settings().mcp_catalog_path)
        return self._catalog

    def catalog(self) -> dict[str, Any]:
        """``GET /mcp/catalog`` and ``mcp_list_catalog``: catalog servers plus the overlay."""
        from .catalog import catalog_with_overlay

        return catalog_with_overlay(self.load_catalog(), self.snapshots())

    # ------------------------------------------------------------------ capability requests
    def _capabilities(self) -> CapabilityRequests:
        if self._capability_requests is None:
            from .capability_requests import CapabilityRequests

            self._capability_requests = CapabilityRequests(
                repo=self.repo,
                events=self.events,
                clock=self.clock,
                settings=self.settings,
                load_catalog=self.load_catalog,
            )
        return self._capability_requests

    async def request_capability(
        self, request: CapabilityRequestInput, *, source: str, caller_agent_id: str | None = None
    ) -> dict[str, Any]:
        """File a pending approval for an MCP capability; connects nothing (SPEC 2.6)."""
        body = await self._capabilities().request_capability(
            request, source=source, caller_agent_id=caller_agent_id
        )
        approval = body["approval"]
        if self.decision_sink is not None:
            self.decision_sink(
                domain="capability_request",
                effect="approval_required",
                subject=str(approval["context"]["capability_key"]),
                actor_id=request.agent_id,
                approval_id=str(approval["approval_id"]),
            )
        return body

    async def capability_requests(
        self, *, agent_id: str | None = None, status: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        return await self._capabilities().capability_requests(
            agent_id=agent_id, status=status, limit=limit
        )

    async def review_capability_request(
        self, approval_id: str, decision: str, *, reviewer: str, notes: str | None = None
    ) -> dict[str, Any]:
        updated = await self._capabilities().review_capability_request(
            approval_id, decision, reviewer=reviewer, notes=notes
        )
        if self.decision_sink is not None and updated["status"] in ("approved", "denied"):
            self.decision_sink(
                domain="capability_request",
                effect="allow" if updated["status"] == "approved" else "deny",
                subject=str(updated["context"]["capability_key"]),
                actor_id=updated["requested_by"].get("actor_id"),
                approval_id=approval_id,
                code=f"reviewed_by:{reviewer}",
            )
        return updated

    async def has_approved_capability(self, agent_id: str, capability_key: str) -> bool:
        """Whether ``agent_id`` holds an approved, unexpired request for ``capability_key``
        (``mcp:<slug>``)."""
        return await self._capabilities().has_approved_capability(agent_id, capability_key)

    # ------------------------------------------------------------------ plumbing
    async def _ask(self, name: str, message: Ask[R]) -> R:
        return await self.entities.ask(ACTOR_PREFIX, name, message)


def _no_spawn(*_: Any) -> None:
    raise RuntimeError("the MCP service is not attached to a running engine")


def _idle_snapshot(config: ConnectorConfig, state: ConnectorState) -> ConnectorSnapshot:
    """A stored connector as the engine starts: nobody is connected yet."""
    from .records import ConnectorSnapshot

    return ConnectorSnapshot(config, attrs.evolve(state, connected=False, mcp_session_id=None))


def _tool_row(server: str, tool: CachedTool) -> dict[str, Any]:
    return {"server_name": server, **tool.to_wire()}


def _auth_fields(error: SvcError) -> dict[str, Any]:
    return {
        "pendingAuth": bool(error.extra.get("pendingAuth", False)),
        "lastAuthChallenge": error.extra.get("lastAuthChallenge"),
        "authorizationUrl": error.extra.get("authorizationUrl"),
    }


__all__ = ["McpService"]
