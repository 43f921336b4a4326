"""Connectors at engine start and stop: connecting the enabled ones, ending open sessions.

At start every enabled connector is connected with its own linear backoff (a
server starting alongside the engine gets a few chances); at stop every open
MCP session is ended politely (``DELETE``), within a bound, best effort.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from .service import McpService

log = logging.getLogger("svc.mcp")


async def reconnect_enabled(service: McpService) -> None:
    names = [s.name for s in service.snapshots() if s.config.enabled]
    async with trio.open_nursery() as nursery:
        for name in names:
            nursery.start_soon(_connect_with_backoff, service, name)


async def _connect_with_backoff(service: McpService, name: str) -> None:
    settings = service.settings()
    step_s = settings.mcp_startup_backoff_ms / 1000
    error = None
    for attempt in range(settings.mcp_startup_attempts):
        if attempt:
            # Linear backoff (0, 1, 2 ... steps): a server starting alongside
            # the engine gets a few chances before the connector gives up.
            await trio.sleep(attempt * step_s)
        snapshot = service.snapshot(name)
        if snapshot is None or not snapshot.config.enabled or snapshot.state.connected:
            return
        outcome = await service.connect(name, source="startup_bootstrap")
        if outcome["ok"]:
            return
        error = outcome.get("error")
    log.warning("mcp server %s did not connect at start-up: %s", name, error)


async def close_sessions(service: McpService, names: Sequence[str]) -> None:
    """End the sessions of the running connector actors ``names``."""
    if not names:
        return  # no connector actor ever activated: no session to end
    from .client import CLOSE_GRACE_S

    with trio.move_on_after(CLOSE_GRACE_S + 1.0):
        async with trio.open_nursery() as nursery:
            for name in names:
                nursery.start_soon(_close_quietly, service, name)


async def _close_quietly(service: McpService, name: str) -> None:
    from .client import CLOSE_GRACE_S
    from .connector import CloseSession
    from .service import ACTOR_PREFIX

    ref = service.actors.lookup(ACTOR_PREFIX + name)
    if ref is None:
        return
    try:
        await ref.ask(CloseSession(), timeout=CLOSE_GRACE_S + 1.0)
    except Exception:
        # Best effort at shutdown: an unreachable server keeps its session until it expires it.
        log.debug("closing the mcp session of %s failed", name, exc_info=True)


__all__ = ["close_sessions", "reconnect_enabled"]
