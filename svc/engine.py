"""The engine: the root of the supervision tree and the in-process embedding API.

::

    async with svc.open_engine(settings, serve_http=True) as engine:
        print(engine.url)            # the HTTP/SSE API, if served
        ...                          # or drive the engine directly from Python

Start-up opens the store (applying migrations), the event log and the actor
system, then starts the root supervisor: the dynamic supervisors that hold
sessions, connectors, teams and goals, and (optionally) the HTTP server, in
that order. Leaving the block shuts down gracefully: open SSE streams end, the
HTTP server finishes in-flight requests, actors stop (reverse order), queued
events are committed, and the database is checkpointed and closed.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import httpx
import hypercorn.config
import hypercorn.trio
import trio

from actors import ActorSystem, open_actor_system
from supervisors import (
    ChildSpec,
    DynamicSupervisor,
    Restart,
    Strategy,
    Supervisor,
    open_dynamic_supervisor,
    open_supervisor,
    run_supervisor,
)

from ._version import __version__
from .clock import Clock, SystemClock
from .cluster import Cluster, open_cluster
from .component import Component, default_components
from .entities import Entities
from .errors import ConfigError
from .events import EventLog, open_event_log
from .heap import trim_heap_periodically
from .limits import ClientStreams, Slots
from .outbound import outbound_client
from .providers import ProviderRegistry
from .sessions import (
    PermissionService,
    QuestionService,
    SessionRepository,
    SessionService,
    SessionServices,
    ToolDispatcher,
)
from .settings import Settings
from .store import KeyValueRepository, Store, open_store
from .tools import ToolRegistry
from .tools.builtin import register_builtins

if TYPE_CHECKING:
    # Only for types: each domain's service module loads with its component.
    from .automations.service import AutomationService
    from .browser.service import BrowserService
    from .goals.service import GoalService
    from .identity.service import IdentityService
    from .incidents.service import IncidentService
    from .mcp.service import McpService
    from .memory.service import MemoryService
    from .metrics import Metrics
    from .teams.service import TeamsService

log = logging.getLogger("svc.engine")

# The dynamic supervisors of the entities group, in start order.
ENTITY_SUPERVISORS = ("sessions", "connectors", "teams", "goals")

HTTP_GRACE_SECONDS = 5.0
"""The default of ``shutdown_grace_ms`` (the settings hold the grace in force)."""


@attrs.define(eq=False)
class Engine:
    """A running engine. Obtain one from :func:`open_engine`."""

    settings: Settings
    clock: Clock
    store: Store
    events: EventLog
    actors: ActorSystem
    kv: KeyValueRepository
    started_at_ms: int
    cluster: Cluster = attrs.field(default=None)
    """This replica among those sharing the store (svc/cluster); alone on SQLite."""
    ready: bool = False
    url: str | None = None
    """Base URL of the HTTP API when it is served (the real port when bound to 0)."""
    http: httpx.AsyncClient = attrs.field(default=None)
    """Shared outbound HTTP client (providers, web tools, MCP)."""
    entities: Entities = attrs.field(default=None)
    """The typed gateway to entity actors (sessions, connectors, missions, goals)."""
    providers: ProviderRegistry = attrs.field(default=None)
    tools: ToolRegistry = attrs.field(factory=ToolRegistry)
    permissions: PermissionService = attrs.field(default=None)
    questions: QuestionService = attrs.field(default=None)
    dispatcher: ToolDispatcher = attrs.field(default=None)
    sessions: SessionService = attrs.field(default=None)
    # Domain services, each set by its component's setup (see svc/component.py); an
    # engine opened without a domain's component has None there.
    mcp: McpService = attrs.field(default=None)
    memory: MemoryService = attrs.field(default=None)
    identity: IdentityService = attrs.field(default=None)
    teams: TeamsService = attrs.field(default=None)
    automations: AutomationService = attrs.field(default=None)
    goals: GoalService = attrs.field(default=None)
    incidents: IncidentService = attrs.field(default=None)
    browser: BrowserService = attrs.field(default=None)
    components: list[Component] = attrs.field(factory=list)
    run_slots: Slots = attrs.field(factory=lambda: Slots(1))
    """Runs executing now, bounded by ``max_concurrent_runs``."""
    streams: ClientStreams = attrs.field(factory=lambda: ClientStreams(1))
    """Open SSE streams per client, bounded by ``max_sse_streams_per_client``."""
    metrics: Metrics | None = None
    """The Prometheus families when ``metrics_enabled`` (read by ``GET /metrics``)."""
    version: str = __version__
    _background: trio.Nursery | None = None
    _http_shutdown: trio.Event = attrs.field(factory=trio.Event)
    _settings_listeners: list[Callable[[Settings], None]] = attrs.field(factory=list)

    @property
    def state_dir(self) -> Path:
        return self.settings.resolved_state_dir

    @property
    def workspace(self) -> Path:
        return self.settings.resolved_workspace

    def spawn_background(self, fn: Callable[..., Awaitable[object]], *args: object) -> None:
        """Run ``fn(*args)`` as a background task of the engine (cancelled at shutdown).

        For best-effort work such as reconnecting connectors: an exception is
        logged, never propagated into the engine.
        """
        assert self._background is not None, "the engine is not running"

        async def guarded() -> None:
            try:
                await fn(*args)
            except Exception:
                log.exception("background task %s failed", getattr(fn, "__qualname__", fn))

        self._background.start_soon(guarded)

    def on_settings_changed(self, listener: Callable[[Settings], None]) -> None:
        """Call ``listener(new_settings)`` after every successful reload."""
        self._settings_listeners.append(listener)

    async def reload_settings(self) -> Settings:
        """Re-read every configuration layer from disk.

        An invalid file raises :class:`ConfigError` and the running settings stay.
        """
        fresh = await trio.to_thread.run_sync(self.settings.reload)
        self.settings = fresh
        self._apply_settings(fresh)
        for listener in self._settings_listeners:
            listener(fresh)
        self.events.publish("config.reloaded", {"ok": True})
        return fresh

    def _apply_settings(self, settings: Settings) -> None:
        self.providers.rebuild(settings)
        self.permissions.wait_timeout_s = settings.permission_wait_timeout_ms / 1000
        self.questions.wait_timeout_s = settings.question_wait_timeout_ms / 1000
        self.dispatcher.exec_timeout_s = settings.tool_exec_timeout_ms / 1000
        self.run_slots.limit = settings.max_concurrent_runs
        self.streams.limit = settings.max_sse_streams_per_client
        self.events.subscriber_buffer = settings.event_subscriber_buffer

    async def _build_services(self) -> None:
        """Wire the domain services (before any actor or route can use them)."""
        settings = self.settings
        self.run_slots = Slots(settings.max_concurrent_runs)
        self.streams = ClientStreams(settings.max_sse_streams_per_client)
        self.events.subscriber_buffer = settings.event_subscriber_buffer
        if settings.metrics_enabled:
            self._enable_metrics()
        self.providers = ProviderRegistry(settings, self.http)
        register_builtins(self.tools)
        self.permissions = PermissionService(
            self.store,
            self.events,
            self.clock,
            wait_timeout_s=settings.permission_wait_timeout_ms / 1000,
            apply_defaults=settings.apply_default_permission_rules,
        )
        await self.permissions.load()
        self.questions = QuestionService(
            self.store,
            self.events,
            self.clock,
            wait_timeout_s=settings.question_wait_timeout_ms / 1000,
        )
        await self.questions.load()
        self.dispatcher = ToolDispatcher(
            self.tools, self.permissions, exec_timeout_s=settings.tool_exec_timeout_ms / 1000
        )
        self.sessions = SessionService(
            SessionServices(
                repo=SessionRepository(self.store),
                events=self.events,
                clock=self.clock,
                providers=self.providers,
                tools=self.tools,
                dispatcher=self.dispatcher,
                permissions=self.permissions,
                questions=self.questions,
                settings=lambda: self.settings,
                http=self.http,
                run_slots=self.run_slots,
            ),
            self.actors,
        )
        if not self.cluster.shared:
            # Replicas sharing a store: another replica may be running those runs.
            # Each session settles its own orphans when its actor is activated here,
            # which the lease allows only once their owner is gone (svc/cluster).
            await self.sessions.recover()
        for component in self.components:
            await component.setup(self)

    def _enable_metrics(self) -> None:
        # Imported here: the client library loads only for an engine that serves metrics.
        from .metrics import Metrics
        from .metrics.queues import runs_queued

        metrics = Metrics()
        metrics.watch(
            runs_active=lambda: self.run_slots.in_use,
            runs_queued=lambda: runs_queued(self),
            sse_subscribers=lambda: self.events.subscriber_count,
            sse_streams=lambda: self.streams.total,
            store_memory=self.store.memory_bytes,
        )
        self.events.on_append = metrics.observe_event_append
        metrics.watch_restarts(self._restart_counts)
        self.metrics = metrics

    def _restart_counts(self) -> dict[str, int]:
        """Per entity supervisor: its actors' restarts in its current incarnation, plus
        the supervisor's own restarts by its group."""
        counts = {}
        for key in ENTITY_SUPERVISORS:
            supervisor = self.entities.supervisor(key)
            own = max(0, self.entities.starts.get(key, 0) - 1)
            counts[key] = own + (supervisor.restart_count if supervisor is not None else 0)
        return counts

    def _install_actor_factories(self) -> None:
        self.sessions.install(self.entities)
        for component in self.components:
            component.install(self)

    async def _run_services(
        self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED
    ) -> None:
        children = [child for component in self.components for child in component.children(self)]
        if not children:
            task_status.started()
            await trio.sleep_forever()
        await run_supervisor(
            children,
            strategy=Strategy.ONE_FOR_ONE,
            max_restarts=5,
            max_seconds=60.0,
            name="services",
            task_status=task_status,
        )

    async def _run_background(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        async with trio.open_nursery() as nursery:
            self._background = nursery
            task_status.started()
            await trio.sleep_forever()

    # ------------------------------------------------------------ supervision
    async def _run_entity_supervisor(
        self,
        key: str,
        *,
        task_status: trio.TaskStatus[DynamicSupervisor] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        async with open_dynamic_supervisor(name=key, max_restarts=10, max_seconds=30.0) as sup:
            # Registered on every (re)start: spawners look the supervisor up when they
            # spawn, so a restarted group's new supervisors are the ones used.
            self.entities.supervisor_started(key, sup)
            try:
                task_status.started(sup)
                await trio.sleep_forever()
            finally:
                self.entities.supervisor_stopped(key, sup)

    async def _run_entities(
        self, *, task_status: trio.TaskStatus[Supervisor] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The entity supervisors as one group: one domain escalating restarts only them."""
        children = [
            ChildSpec(
                id=key, start=self._run_entity_supervisor, args=(key,), restart=Restart.PERMANENT
            )
            for key in ENTITY_SUPERVISORS
        ]
        await run_supervisor(
            children,
            strategy=Strategy.ONE_FOR_ONE,
            max_restarts=5,
            max_seconds=60.0,
            name="entities",
            task_status=task_status,
        )

    async def _serve_http(
        self, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
    ) -> None:
        from .http import create_app  # the HTTP layer depends on the engine, not the reverse

        self._http_shutdown = trio.Event()
        config = hypercorn.config.Config()
        host = self.settings.host
        config.bind = [
            f"[{host}]:{self.settings.port}" if ":" in host else f"{host}:{self.settings.port}"
        ]
        config.graceful_timeout = self.settings.shutdown_grace_ms / 1000
        config.accesslog = None
        config.errorlog = logging.getLogger("hypercorn.error")
        config.keep_alive_timeout = 75
        config.h11_max_incomplete_size = 64 * 1024
        app = create_app(self)

        engine = self

        class _Started:
            # hypercorn reports the bound addresses; the first one is our URL.
            def started(self, binds: list[str] | None = None) -> None:
                engine.url = binds[0] if binds else ""
                task_status.started(engine.url)

        await hypercorn.trio.serve(
            app,
            config,
            shutdown_trigger=self._http_shutdown.wait,
            task_status=_Started(),
        )


def ensure_bind_allowed(settings: Settings) -> None:
    """Refuse a non-loopback bind without a token (the API would be open to the network)."""
    if settings.token is None and not is_loopback(settings.host):
        raise ConfigError(
            f"refusing to listen on {settings.host} without an API token: set --api-token or "
            "SVC_API_TOKEN (generate one with `svc-engine token generate`), or bind 127.0.0.1"
        )


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@asynccontextmanager
async def open_engine(
    settings: Settings | None = None,
    *,
    serve_http: bool = False,
    clock: Clock | None = None,
    components: list[Component] | None = None,
) -> AsyncIterator[Engine]:
    """Start an engine for the duration of the block (see the module docstring)."""
    settings = settings if settings is not None else Settings.load()
    if serve_http:
        ensure_bind_allowed(settings)
    clock = clock or SystemClock()
    state_dir = settings.resolved_state_dir
    state_dir.mkdir(parents=True, exist_ok=True)

    async with (
        # store_url: None (SQLite in the state dir) until Settings declares it.
        open_store(getattr(settings, "store_url", None), state_dir=state_dir) as store,
        open_event_log(store, clock) as events,
        open_cluster(store, clock, settings) as cluster,
        open_actor_system() as system,
        outbound_client() as http,
    ):
        engine = Engine(
            entities=Entities(system),
            settings=settings,
            clock=clock,
            store=store,
            events=events,
            actors=system,
            kv=KeyValueRepository(store),
            started_at_ms=clock.now_ms(),
            cluster=cluster,
            http=http,
            components=components if components is not None else default_components(),
        )
        await engine._build_services()
        children: list[ChildSpec] = [
            ChildSpec(id="entities", start=engine._run_entities, restart=Restart.PERMANENT)
        ]
        children.append(
            ChildSpec(id="background", start=engine._run_background, restart=Restart.PERMANENT)
        )
        children.append(
            ChildSpec(id="services", start=engine._run_services, restart=Restart.PERMANENT)
        )
        if serve_http:
            children.append(
                ChildSpec(
                    id="http",
                    start=engine._serve_http,
                    restart=Restart.PERMANENT,
                    # Graceful first: hypercorn stops accepting and lets in-flight
                    # requests finish within its own graceful timeout.
                    stop=lambda: engine._http_shutdown.set(),
                    shutdown_grace=settings.shutdown_grace_ms / 1000 + 1.0,
                )
            )
        # One for one: a group that escalates (the entities, the services) is
        # restarted alone, never taking the HTTP server with it; the store and the
        # event log sit outside the tree and are never restarted. Past the root's own
        # budget the engine stops rather than run half-wired.
        async with open_supervisor(
            children, strategy=Strategy.ONE_FOR_ONE, max_restarts=3, max_seconds=60.0, name="engine"
        ):
            engine._install_actor_factories()
            engine.spawn_background(trim_heap_periodically, settings.heap_trim_interval_s)
            if engine.metrics is not None:
                from .metrics import record_events

                engine.spawn_background(record_events, engine.metrics, events)
                if engine.automations is not None:
                    engine.automations.scheduler.on_tick = engine.metrics.observe_scheduler_tick
                if engine.mcp is not None:
                    engine.mcp.on_call = engine.metrics.observe_mcp_call
            # Replicas on one store: leases checked on every entity ask (svc/cluster).
            cluster.attach(engine.entities, engine.actors, url=settings.replica_url or engine.url)
            engine.ready = True
            for component in engine.components:
                await component.started(engine)
            log.info("engine ready", extra={"state_dir": str(state_dir), "url": engine.url})
            try:
                yield engine
            finally:
                engine.ready = False
                with trio.CancelScope(shield=True), trio.move_on_after(10):
                    # Shielded and bounded: components get a short chance to
                    # wind down (stop schedulers, persist) even on cancellation.
                    for component in reversed(engine.components):
                        await component.stopping(engine)
                # Open SSE streams end now, so the HTTP server's graceful
                # shutdown is not held up by clients that never disconnect.
                events.end_streams()


__all__ = ["Engine", "ensure_bind_allowed", "is_loopback", "open_engine"]
