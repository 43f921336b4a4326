"""The engine's shared HTTP client for outbound calls (model vendors, web tools).

Its transport is built on the first request, not with the engine: building one
loads the system's CA bundle into an SSL context, which was a large share of
start-up work, and an engine may serve for a long time before it calls out.
"""

from __future__ import annotations

import httpx

# No cap on connections: a model stream holds its connection for the whole run,
# so a pool cap would silently cap concurrent runs (and time the rest out waiting
# for the pool). Runs are bounded by their own budgets instead.
LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=64)
TIMEOUT = httpx.Timeout(30.0, connect=10.0, pool=None)


class LazyTransport(httpx.AsyncBaseTransport):
    """An ``AsyncHTTPTransport`` created when the first request needs it."""

    def __init__(self, **options: object) -> None:
        self._options = options
        self._transport: httpx.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._transport is None:
            self._transport = httpx.AsyncHTTPTransport(**self._options)  # type: ignore[arg-type]
        return await self._transport.handle_async_request(request)

    async def aclose(self) -> None:
        if self._transport is not None:
            await self._transport.aclose()


def outbound_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(
        timeout=TIMEOUT, follow_redirects=False, transport=LazyTransport(limits=LIMITS)
    )
