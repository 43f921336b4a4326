"""The shared outbound client builds its transport (and SSL context) on first use."""

from __future__ import annotations

from svc.outbound import LazyTransport, outbound_client
from tests.fakes import open_fake_openai


async def test_the_transport_is_built_by_the_first_request_and_then_reused() -> None:
    async with open_fake_openai() as fake, outbound_client() as http:
        transport = http._transport
        assert isinstance(transport, LazyTransport)
        assert transport._transport is None  # nothing built at start-up
        first = await http.get(fake.url + "/models")
        built = transport._transport
        assert built is not None
        second = await http.get(fake.url + "/models")
        assert transport._transport is built
        assert first.status_code == second.status_code == 200


async def test_pool_limits_do_not_cap_concurrent_streams() -> None:
    async with outbound_client() as http:
        transport = http._transport
        assert isinstance(transport, LazyTransport)
        assert transport._options["limits"].max_connections is None  # type: ignore[attr-defined]
