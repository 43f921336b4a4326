"""Resources: ``resources/list`` and ``resources/read`` through the connector's session.

Like tool calls, each runs as a task in the actor's nursery under the call timeout and
answers through a :class:`~.connector_messages.Pending`; a session the server forgot
is renewed once. A server that announced no ``resources`` capability lists none.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio

from ..errors import SvcError
from .client import BadResponse, LinkLost, McpLink, RpcError, SessionExpired
from .connector_calls import ConnectorCalls
from .connector_messages import Pending
from .errors import McpCallFailed, McpCallTimeout, McpConnectionLost, McpDisabled

T = TypeVar("T")


class ConnectorResources(ConnectorCalls):
    """The connector's resources (see the module docstring)."""

    def _list_resources(self) -> Pending[list[dict[str, Any]]]:
        async def work(link: McpLink) -> list[dict[str, Any]]:
            if link.supports_resources is False:
                return []
            return [{**r, "server": self.server} for r in await link.list_resources()]

        return self._start("resources/list", work)

    def _read_resource(self, uri: str) -> Pending[dict[str, Any]]:
        async def work(link: McpLink) -> dict[str, Any]:
            return {**await link.read_resource(uri), "server": self.server, "uri": uri}

        return self._start("resources/read", work)

    def _start(self, what: str, work: Callable[[McpLink], Awaitable[T]]) -> Pending[T]:
        if not self.config.enabled:
            raise McpDisabled(f"MCP server `{self.server}` is disabled", name=self.server)
        pending: Pending[T] = Pending()
        self.nursery.start_soon(self._run_resource, pending, what, work)
        return pending

    async def _run_resource(
        self, pending: Pending[T], what: str, work: Callable[[McpLink], Awaitable[T]]
    ) -> None:
        with pending.scope:
            pending.scope.deadline = trio.current_time() + self.s.call_timeout_s()
            try:
                link = await self._ready_link()
                try:
                    try:
                        pending.resolve(await work(link))
                    except SessionExpired:
                        # The server forgot the session (and did nothing): once more.
                        pending.resolve(await work(await self._renew(link)))
                except (LinkLost, SessionExpired) as exc:
                    raise McpConnectionLost(
                        self._scrub(
                            f"the connection to MCP server `{self.server}` was lost: {exc}"
                        ),
                        name=self.server,
                    ) from None
                except (RpcError, BadResponse) as exc:
                    raise McpCallFailed(
                        self._scrub(f"MCP server `{self.server}` refused {what}: {exc}"),
                        name=self.server,
                    ) from None
            except SvcError as exc:
                pending.fail(exc)
        if pending.scope.cancelled_caught:
            pending.fail(
                McpCallTimeout(
                    f"MCP server `{self.server}` did not answer {what} within "
                    f"{self.s.call_timeout_s():g}s",
                    name=self.server,
                )
            )


__all__ = ["ConnectorResources"]
