"""The actor that owns the sidecar process.

It starts the sidecar on the first request (lazily), checks the
``browser.version`` handshake, and hands out the live connection; calls then go
straight to the connection, concurrently. A caller that found the pipe closed
asks for a new one (:class:`Reconnect`), and the actor replaces it only if it is
still the broken one, so ten callers that saw the same death start one sidecar.
When the actor stops (engine shutdown, a crash), the sidecar is closed, which
ends every browser it started.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from actors import Actor

from ..entities import Ask
from .client import SidecarConnection
from .errors import BrowserError
from .readiness import PROTOCOL_VERSION

HANDSHAKE_TIMEOUT = 60.0


@attrs.frozen
class Connect(Ask[SidecarConnection]):
    """The live connection, starting the sidecar if there is none."""


@attrs.frozen
class Reconnect(Ask[SidecarConnection]):
    """``stale`` broke: replace it (unless that already happened) and return the new one."""

    stale: SidecarConnection


@attrs.frozen
class SidecarCommand:
    argv: tuple[str, ...]
    env: Mapping[str, str]


class SidecarActor(Actor):
    mailbox_size = 256

    def __init__(self, command: SidecarCommand) -> None:
        self.command = command
        self.connection: SidecarConnection | None = None
        self.sidecar_version: str | None = None

    async def receive(self, message: object) -> object:
        if isinstance(message, Connect):
            return await self._connection()
        if isinstance(message, Reconnect):
            if message.stale is self.connection:
                await self._drop()
            return await self._connection()
        raise NotImplementedError(f"{type(self).__name__} does not handle {message!r}")

    async def _connection(self) -> SidecarConnection:
        if self.connection is not None and not self.connection.closed:
            return self.connection
        await self._drop()
        connection = await SidecarConnection.start(
            self.nursery, self.command.argv, self.command.env
        )
        try:
            version = await connection.call("browser.version", {}, timeout=HANDSHAKE_TIMEOUT)
        except BaseException:
            await connection.aclose()
            raise
        protocol = version.get("protocol_version")
        if protocol != PROTOCOL_VERSION:
            await connection.aclose()
            raise BrowserError(
                f"protocol_mismatch: expected browser protocol {PROTOCOL_VERSION}, got {protocol}",
                code="protocol_mismatch",
            )
        self.sidecar_version = version.get("sidecar_version")
        self.connection = connection
        return connection

    async def _drop(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            await connection.aclose()

    async def stopped(self, error: BaseException | None) -> None:
        await self._drop()


def sidecar_argv(path: str, extra: Sequence[str] = ()) -> tuple[str, ...]:
    return (path, "serve", "--transport", "stdio", *extra)
