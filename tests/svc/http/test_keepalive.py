"""A keep-alive connection stays usable after the engine answers before reading a body.

The engine refuses some requests (401, 404, 405, 413) without reading their
bodies. Each test here drives one connection: with httpx limited to a single
connection, or with a raw socket speaking HTTP/1.1 through h11. The httpx
timeout and the ``fail_after`` guards only turn a stalled connection (the
defect) into a failure instead of a hung test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import urlsplit

import h11
import httpx
import pytest
import trio

import svc
from svc.http import MAX_BODY_BYTES
from svc.http.body_limits import largest_limit

TOKEN = "tk_keepalive_0123456789abcdef0123"
# Large enough that the answer goes out while the body is still arriving.
BODY = b"x" * (512 * 1024)
STALL_GUARD_SECONDS = 15.0


def one_connection(engine: svc.Engine) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=engine.url or "",
        timeout=STALL_GUARD_SECONDS,
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
    )


async def alternate(
    client: httpx.AsyncClient,
    rejected: Callable[[], Awaitable[httpx.Response]],
    status: int,
    **headers: str,
) -> None:
    """100 rejected POSTs with bodies, each followed by a good request, on one connection."""
    for _ in range(100):
        response = await rejected()
        assert response.status_code == status, response.text
        good = await client.get("/config/providers", headers=headers)
        assert good.status_code == 200, good.text


async def test_404s_with_bodies_leave_the_connection_usable(engine: svc.Engine) -> None:
    async with one_connection(engine) as client:
        await alternate(client, lambda: client.post("/no/such/route", content=BODY), 404)


async def test_405s_with_bodies_leave_the_connection_usable(engine: svc.Engine) -> None:
    async with one_connection(engine) as client:
        await alternate(client, lambda: client.post("/global/health", content=BODY), 405)


class TestWithAToken:
    @pytest.fixture
    def settings(self, make_settings: Callable[..., svc.Settings]) -> svc.Settings:
        return make_settings(api_token=TOKEN)

    async def test_401s_with_bodies_leave_the_connection_usable(self, engine: svc.Engine) -> None:
        async with one_connection(engine) as client:
            await alternate(
                client,
                lambda: client.post("/session", content=BODY),
                401,
                **{"X-Agent-Token": TOKEN},
            )


async def test_413s_under_the_largest_limit_leave_the_connection_usable(
    engine: svc.Engine,
) -> None:
    """A body past its route's limit (1 MiB) but under the largest (prompts, imports) is read
    to its end and dropped: the same connection carries the next request."""
    big = b"x" * (MAX_BODY_BYTES + 1)
    async with one_connection(engine) as client:
        for _ in range(3):
            response = await client.post(
                "/admin/reload-config", content=big, headers={"Content-Type": "application/json"}
            )
            assert response.status_code == 413
            assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
            assert "connection" not in response.headers
            assert (await client.get("/config/providers")).status_code == 200


class TestPastTheLargestLimit:
    @pytest.fixture
    def settings(self, make_settings: Callable[..., svc.Settings]) -> svc.Settings:
        return make_settings(
            max_body_bytes=4096, max_prompt_body_bytes=8192, max_import_body_bytes=8192
        )

    # httpx abandons its request-body iterator when the server answers early.
    @pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
    async def test_a_413_closes_the_connection_and_the_client_carries_on(
        self, engine: svc.Engine
    ) -> None:
        big = b"x" * (64 * 1024)
        async with one_connection(engine) as client:
            for _ in range(3):
                response = await client.post(
                    "/admin/reload-config",
                    content=big,
                    headers={"Content-Type": "application/json"},
                )
                assert response.status_code == 413
                assert response.headers["connection"] == "close"
                assert (await client.get("/config/providers")).status_code == 200


@pytest.fixture
async def raw(engine: svc.Engine) -> AsyncIterator[RawConnection]:
    parts = urlsplit(engine.url or "")
    stream = await trio.open_tcp_stream(parts.hostname or "", parts.port or 0)
    async with stream:
        yield RawConnection(stream, f"{parts.hostname}:{parts.port}")


class RawConnection:
    """One client connection whose every byte the test controls."""

    def __init__(self, stream: trio.SocketStream, host: str) -> None:
        self.stream = stream
        self.host = host
        self.h11 = h11.Connection(h11.CLIENT)

    async def send(self, *events: h11.Event) -> None:
        for event in events:
            data = self.h11.send(event)
            if data:
                await self.stream.send_all(data)

    def request(self, method: str, target: str, **headers: str) -> h11.Request:
        return h11.Request(
            method=method, target=target, headers=[("Host", self.host), *headers.items()]
        )

    async def response(self) -> tuple[h11.Response, bytes]:
        head: h11.Response | None = None
        body = b""
        with trio.fail_after(STALL_GUARD_SECONDS):
            while True:
                event = self.h11.next_event()
                if event is h11.NEED_DATA:
                    self.h11.receive_data(await self.stream.receive_some(65536))
                elif isinstance(event, h11.Response):
                    head = event
                elif isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    assert head is not None
                    return head, body
                else:
                    raise AssertionError(f"unexpected {event!r}")

    async def closed_by_server(self) -> bool:
        with trio.fail_after(STALL_GUARD_SECONDS):
            while True:
                data = await self.stream.receive_some(65536)
                if not data:
                    return True


async def test_declared_oversized_body_gets_413_and_the_connection_is_closed(
    raw: RawConnection, engine: svc.Engine
) -> None:
    past_all = largest_limit(engine.settings) + 1
    await raw.send(
        raw.request("POST", "/session", **{"Content-Length": str(past_all)}),
        h11.Data(data=b"{}"),
    )
    head, _ = await raw.response()
    assert head.status_code == 413
    assert (b"connection", b"close") in head.headers
    assert await raw.closed_by_server()
