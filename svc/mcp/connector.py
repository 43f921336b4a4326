"""The connector actor: one per MCP connector (``mcp/<name>``).

It owns the connector's MCP session (an :class:`~svc.mcp.client.McpLink`), its
tool cache, its authorization challenges and its slice of the global tool
registry (every tool under ``mcp.<server>.``). Connect, refresh, call,
disconnect, reconfigure and delete are messages to it
(:mod:`.connector_messages`), handled one at a time, so its state needs no locks.

Network work never runs in the mailbox loop: a discovery (``initialize`` +
``tools/list``) or a ``tools/call`` runs as a task in the actor's nursery and
the message's reply is a :class:`Pending` handle the caller awaits outside the
actor. So a hundred concurrent calls share one session, a disconnect arrives
while a connect is in flight, and a slow tool never delays a fast one.

State changes made by those tasks are synchronous sections (no await between
reading and writing actor state), so they never interleave with a message.
After a crash the supervisor restarts the actor from the store: its
configuration is intact, and if it was connected it reconnects at once.

The actor is built in layers, one responsibility each: its state, read model
and store (:mod:`.connector_state`), discovery (:mod:`.connector_discovery`),
the session's lifecycle (:mod:`.connector_session`), authorization challenges
(:mod:`.connector_auth`), tool calls (:mod:`.connector_calls`) and resources
(:mod:`.connector_resources`).
"""

from __future__ import annotations

from ..errors import ValidationFailed
from .connector_messages import (
    CallTool,
    CloseSession,
    Connect,
    ConnectorServices,
    ConnectOutcome,
    DeleteConnector,
    Disconnect,
    GetSnapshot,
    ListResources,
    Pending,
    ReadResource,
    Reconfigure,
    Refresh,
    ToolCaller,
)
from .connector_resources import ConnectorResources


class ConnectorActor(ConnectorResources):
    mailbox_size = 4096

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
            case ListResources():
                return self._list_resources()
            case ReadResource(uri=uri):
                return self._read_resource(uri)
        raise ValidationFailed(f"connector actor cannot handle {type(message).__name__}")


__all__ = [
    "CallTool",
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
    "ToolCaller",
]
