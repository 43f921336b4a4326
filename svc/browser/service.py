"""``engine.browser``: readiness, the supervised sidecar, and the engine's browser sessions.

The sidecar actor lives under a dynamic supervisor of the ``services`` group
(:meth:`BrowserService.run`), started on the first call that needs the sidecar:
an engine that never uses the browser never starts it, nor imports the client.

Calls that do not name a session (open, doctor) are retried once on a new
sidecar when the pipe closes under them; a session's browser died with its
sidecar, so a call naming it reports ``browser_session_lost`` instead (after
which the next call finds a fresh sidecar).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from supervisors import DynamicSupervisor, Restart, open_dynamic_supervisor

from . import readiness as r
from .discovery import Found, channel_of, find_browser, find_sidecar, version_of
from .errors import BrowserError, SessionNotFound, SidecarClosed, SidecarNotFound
from .policy import normalize_hosts
from .sessions import BrowserSessionEntry, SessionBook

if TYPE_CHECKING:
    from actors import ActorRef

    from ..engine import Engine
    from ..settings import BrowserSettings
    from .client import SidecarConnection

log = logging.getLogger("svc.browser")

ACTOR_NAME = "browser/sidecar"
STATUS_TTL = 30.0
CONNECT_TIMEOUT = 90.0
REAP_CHECK_MAX = 30.0


class BrowserService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = SessionBook()
        self._status: r.BrowserStatus | None = None
        self._status_at = -math.inf
        self._status_lock = trio.Lock()
        self._actor_lock = trio.Lock()
        self._supervisor: DynamicSupervisor | None = None
        self._supervisor_ready = trio.Event()
        self._book_changed = trio.Event()
        self.opening = 0
        """Sessions being opened now (they count against ``max_sessions``)."""

    @property
    def config(self) -> BrowserSettings:
        return self.engine.settings.browser

    @property
    def allowed_hosts(self) -> tuple[str, ...]:
        return normalize_hosts(self.config.allowed_hosts)

    def now_ms(self) -> int:
        return self.engine.clock.now_ms()

    # ------------------------------------------------------------ supervision
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The ``browser`` child of the services group: the sidecar's supervisor and the reaper
        of idle sessions."""
        async with open_dynamic_supervisor(
            name="browser", max_restarts=5, max_seconds=60.0
        ) as supervisor:
            self._supervisor = supervisor
            self._supervisor_ready.set()
            task_status.started()
            try:
                await self._reap_idle_sessions()
            finally:
                self._supervisor = None
                self._supervisor_ready = trio.Event()

    async def _ref(self) -> ActorRef:
        ref = self.engine.actors.lookup(ACTOR_NAME)
        if ref is not None:
            return ref
        async with self._actor_lock:
            ref = self.engine.actors.lookup(ACTOR_NAME)
            if ref is not None:
                return ref
            path = find_sidecar(self.config.sidecar_path, self.engine.state_dir)
            if path is None:
                raise SidecarNotFound()
            from .actor import SidecarActor
            from .sidecar_process import sidecar_command

            command = sidecar_command(path, self.config)
            while self._supervisor is None:
                await self._supervisor_ready.wait()
            return await self._supervisor.start_actor(
                self.engine.actors,
                ACTOR_NAME,
                lambda: SidecarActor(command),
                restart=Restart.TRANSIENT,
            )

    async def _connection(self, stale: SidecarConnection | None = None) -> SidecarConnection:
        from ..entities import ask_ref
        from .actor import Connect, Reconnect

        ref = await self._ref()
        message = Connect() if stale is None else Reconnect(stale)
        connection: SidecarConnection = await ask_ref(ref, message, timeout=CONNECT_TIMEOUT)
        return connection

    async def call(
        self, method: str, params: Mapping[str, Any], *, timeout: float = 120.0
    ) -> dict[str, Any]:
        """A call that names no session: retried once on a new sidecar if the pipe closed."""
        result, _ = await self.call_on_any(method, params, timeout=timeout)
        return result

    async def call_on_any(
        self, method: str, params: Mapping[str, Any], *, timeout: float
    ) -> tuple[dict[str, Any], SidecarConnection]:
        """:meth:`call`, also returning the connection (the sidecar) that answered."""
        connection = await self._connection()
        try:
            return await connection.call(method, params, timeout=timeout), connection
        except SidecarClosed as exc:
            # The sidecar died under this call (a crash, a kill): it holds nothing
            # this call depends on, so a new sidecar may run it once more.
            log.warning("browser sidecar closed; starting a new one", extra={"error": str(exc)})
            connection = await self._connection(stale=connection)
            return await connection.call(method, params, timeout=timeout), connection

    async def call_session(
        self, entry: BrowserSessionEntry, method: str, params: Mapping[str, Any], *, timeout: float
    ) -> dict[str, Any]:
        """A call on a session's browser (which lives in the sidecar that opened it)."""
        connection = await self._connection()
        if entry.connection is not connection:
            self.forget(entry.session_id)
            raise _lost(entry.session_id)
        try:
            return await connection.call(
                method, {**params, "session_id": entry.session_id}, timeout=timeout
            )
        except SidecarClosed:
            self.forget(entry.session_id)
            # A fresh sidecar for the calls that follow; this session died with the old one.
            await self._connection(stale=connection)
            raise _lost(entry.session_id) from None
        except BrowserError as exc:
            if (
                exc.code == "browser_error"
                and "not found" in exc.message
                and "session" in (exc.message)
            ):
                self.forget(entry.session_id)
                raise _lost(entry.session_id) from None
            raise

    def forget(self, session_id: str) -> None:
        self.sessions.remove(session_id)
        self._book_changed.set()

    def added(self) -> None:
        self._book_changed.set()

    # ------------------------------------------------------------ idle sessions
    async def _reap_idle_sessions(self) -> None:
        while True:
            self._book_changed = trio.Event()
            timeout = self.config.idle_timeout_ms / 1000
            deadline = self.sessions.next_idle_deadline(timeout)
            if deadline is None:
                await self._book_changed.wait()
                continue
            with trio.move_on_at(deadline):
                await self._book_changed.wait()
                continue
            for session_id in self.sessions.idle(timeout):
                log.info("closing idle browser session", extra={"session_id": session_id})
                await self.close_quietly(session_id)

    async def close_quietly(self, session_id: str) -> bool:
        """Close a session's browser; failures are logged (the session is forgotten anyway)."""
        entry = self.sessions.remove(session_id)
        self._book_changed.set()
        if entry is None:
            return False
        try:
            connection = await self._connection()
            if entry.connection is connection:
                await connection.call("browser.close", {"session_id": session_id}, timeout=30.0)
        except BrowserError as exc:
            log.warning("closing a browser session failed", extra={"error": exc.message})
        return True

    async def close_all(self) -> None:
        for session_id in self.sessions.clear():
            await self.close_quietly(session_id)

    # ------------------------------------------------------------ install, smoke test
    async def install(self) -> dict[str, Any]:
        """Place or verify the sidecar of this engine's version; the reference's reply shape."""
        from .install import install_sidecar

        installed = await trio.to_thread.run_sync(
            install_sidecar, self.config, self.engine.state_dir
        )
        status = await self.status(refresh=True)
        return {**installed, "status": status.to_wire()}

    async def smoke_test(self, url: str | None) -> dict[str, Any]:
        from .smoke import smoke_test

        return await smoke_test(self, url)

    # ------------------------------------------------------------ readiness
    async def status(self, *, refresh: bool = False) -> r.BrowserStatus:
        """The readiness status, evaluated at most every 30 s unless ``refresh``."""
        async with self._status_lock:
            if (
                refresh
                or self._status is None
                or trio.current_time() - self._status_at >= STATUS_TTL
            ):
                self._status = await self.evaluate()
                self._status_at = trio.current_time()
            return self._status

    def record_error(self, message: str) -> None:
        if self._status is not None:
            self._status = attrs.evolve(self._status, last_error=message)

    async def evaluate(self) -> r.BrowserStatus:
        """Readiness now: the sidecar (found, its version), then the sidecar's own doctor
        (browser found, its version, a real launch)."""
        config = self.config
        status = r.BrowserStatus(
            enabled=config.enabled,
            headless_default=config.headless_default,
            last_checked_at_ms=self.now_ms(),
        )
        if not config.enabled:
            return status.blocked(r.DISABLED, (r.DISABLED_HELP,))
        sidecar = await self._find_sidecar()
        if not sidecar.found:
            browser = await _find_browser_locally(config.executable_path)
            status = attrs.evolve(status, sidecar=sidecar.to_wire(), browser=browser.to_wire())
            if not browser.found:
                status = status.blocked(
                    r.BROWSER_NOT_FOUND, r.BROWSER_NOT_FOUND_HELP, r.install_hints()
                )
            return status.blocked(r.SIDECAR_NOT_FOUND, r.SIDECAR_NOT_FOUND_HELP)
        try:
            remote = await self.call(
                "browser.doctor",
                {
                    "enabled": True,
                    "headless_default": config.headless_default,
                    "allow_no_sandbox": config.allow_no_sandbox,
                    "executable_path": config.executable_path,
                    "user_data_root": config.user_data_root,
                },
            )
        except BrowserError as exc:
            issue = r.Issue("browser_launch_failed", f"browser readiness task failed: {exc}")
            return attrs.evolve(
                status.blocked(issue, ("Run `svc-engine browser doctor --json` on this host.",)),
                sidecar=sidecar.to_wire(),
                last_error=exc.message,
            )
        found = r.BrowserStatus.from_wire(remote)
        return attrs.evolve(
            found,
            enabled=True,
            headless_default=config.headless_default,
            sidecar=sidecar.to_wire(),
            runnable=found.runnable and not found.blocking_issues,
            last_checked_at_ms=status.last_checked_at_ms,
        )

    async def _find_sidecar(self) -> Found:
        path = find_sidecar(self.config.sidecar_path, self.engine.state_dir)
        if path is None:
            return Found(False)
        try:
            version = await trio.to_thread.run_sync(version_of, path)
        except (OSError, RuntimeError):
            return Found(False, path=str(path))
        return Found(True, path=str(path), version=version)


async def _find_browser_locally(explicit: str | None) -> Found:
    path = find_browser(explicit)
    if path is None:
        return Found(False)
    try:
        version = await trio.to_thread.run_sync(version_of, path)
    except (OSError, RuntimeError):
        version = None
    return Found(True, path=str(path), version=version, channel=channel_of(path))


def _lost(session_id: str) -> SessionNotFound:
    return SessionNotFound(
        f"browser_session_lost: browser session `{session_id}` ended with its sidecar; "
        "open a new one",
        code="browser_session_lost",
        session_id=session_id,
    )
