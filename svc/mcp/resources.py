"""Resources of every connected connector (``GET /mcp/resources``) and reading one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ..errors import SvcError

if TYPE_CHECKING:
    from .service import McpService


async def list_all(service: McpService) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every resource of the enabled, connected connectors, and the servers that failed.

    Servers are asked concurrently; one that fails (or times out) leaves the others'
    resources listed and is named in the second value with its error.
    """
    from .connector import ListResources

    found: dict[str, list[dict[str, Any]]] = {}
    failed: dict[str, str] = {}

    async def one(name: str) -> None:
        try:
            pending = await service._ask(name, ListResources())
            found[name] = await pending.wait()
        except SvcError as exc:
            failed[name] = exc.message

    async with trio.open_nursery() as nursery:
        for snapshot in service.snapshots():
            if snapshot.config.enabled and snapshot.state.connected:
                nursery.start_soon(one, snapshot.name)
    rows = [r for name in sorted(found) for r in found[name]]
    return rows, failed


async def read(service: McpService, server: str, uri: str) -> dict[str, Any]:
    from .connector import ReadResource

    service.get(server)
    pending = await service._ask(server, ReadResource(uri))
    return await pending.wait()
