"""The connector actor's state: its configuration, its session state, its slice of the registry.

:class:`ConnectorBase` is the root of the connector actor (:mod:`.connector`):
it holds the state, keeps the service's read model and the registry in step
with it, and writes it to the store. The other parts of the actor build on it,
one responsibility each: discovery (:mod:`.connector_discovery`), the session's
lifecycle (:mod:`.connector_session`), authorization challenges
(:mod:`.connector_auth`) and tool calls (:mod:`.connector_calls`).
"""

from __future__ import annotations

import itertools

import attrs

from actors import Actor

from .auth import AuthChallenge, AuthLedger
from .client import McpLink
from .connector_messages import ConnectorServices, ConnectOutcome, Pending
from .endpoint import header_values, scrub_values
from .naming import server_prefix
from .records import ConnectorConfig, ConnectorSnapshot, ConnectorState

# Process-wide, so a restarted incarnation's writes are newer than its predecessor's
# (the store's counter is reset at engine start).
_WRITE_VERSIONS = itertools.count(1)


class ConnectorBase(Actor):
    """State, read model, registry and store of one connector (see the module docstring)."""

    def __init__(
        self, services: ConnectorServices, config: ConnectorConfig, state: ConnectorState
    ) -> None:
        self.s = services
        self.config = config
        self.state = state
        self.ledger = AuthLedger(services.auth_cooldown_ms(), state.pending_auth_by_tool)
        self.link: McpLink | None = None
        self.discovery: Discovery | None = None
        self.generation = 0

    def snapshot(self) -> ConnectorSnapshot:
        return ConnectorSnapshot(self.config, self.state)

    @property
    def server(self) -> str:
        """The connector's name (the actor's own ``name`` is ``mcp/<server>``)."""
        return self.config.name

    def _scrub(self, text: str) -> str:
        """Server-supplied error text without this connector's header values (a server may
        echo them)."""
        return scrub_values(text, header_values(self.config.headers, self.s.environ()))

    def _scrubbed(self, challenge: AuthChallenge | None) -> AuthChallenge | None:
        if challenge is None:
            return None
        return attrs.evolve(challenge, message=self._scrub(challenge.message))

    def _store_ledger(self) -> None:
        """Copy the ledger into the state and the read model (the caller persists it)."""
        self.state = attrs.evolve(
            self.state,
            pending_auth_by_tool=dict(self.ledger.pending),
            updated_at_ms=self.s.clock.now_ms(),
        )
        self._publish()

    def _clear_state(
        self, *, last_error: str | None, challenge: AuthChallenge | None = None
    ) -> int:
        """Back to "not connected": no session, no cache, no pending challenges; tools
        unregistered."""
        self.ledger.clear()
        self.state = attrs.evolve(
            self.state.disconnected(last_error=last_error, now_ms=self.s.clock.now_ms()),
            last_auth_challenge=challenge,
        )
        removed = self._sync_registry()
        self._publish()
        return removed

    def _retire(self, link: McpLink, *, graceful: bool = False) -> None:
        if graceful and link.alive:
            link.close()
            self.nursery.start_soon(link.wait_closed)
        else:
            link.abort()

    def _sync_registry(self) -> int:
        """Make the registry hold exactly this connector's usable, allowed tools; returns how
        many went."""
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


def settings_of(config: ConnectorConfig) -> ConnectorConfig:
    """The configuration without its timestamps (what "changed" compares)."""
    return attrs.evolve(config, created_at_ms=0, updated_at_ms=0)


@attrs.define(eq=False)
class Discovery:
    """An ``initialize`` + ``tools/list`` in flight (at most one per connector)."""

    kind: str
    """connect | refresh | reconnect"""
    source: str
    pending: Pending[ConnectOutcome]
    generation: int
    opened: McpLink | None = None


__all__ = ["ConnectorBase", "Discovery", "settings_of"]
