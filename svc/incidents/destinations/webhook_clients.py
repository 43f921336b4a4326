"""One pooled HTTP transport per webhook destination, kept while its config is unchanged.

A delivery reuses the destination's open connection instead of sharing the engine's
client with model streams and web tools. Every request still goes through the outbound
guard (:func:`svc.net.guarded_stream`): the URL is re-checked and its name re-resolved
on each delivery, and the request is sent to the checked address itself, so a kept
connection is one to an address that passed the check (the pool is keyed by that
address). Deliveries go through a bare ``httpx`` transport, not a client: they need
none of a client's layers (no cookie jar, since a delivery carries no state from the
last one; no auth flow; no proxy from the environment, which would connect to the name
on its own and defeat the pinning; redirects are the guard's), and skipping them is
most of what a loopback delivery cost over a plain POST. A transport whose destination
changed or disappeared is closed at the next config save; all are closed when the
engine stops.
"""

from __future__ import annotations

import attrs
import httpx

from ...net import UrlPolicy
from ..config import Destination, MonitorConfig
from ..webhook_policy import WebhookPolicy, webhook_policy

LIMITS = httpx.Limits(max_connections=8, max_keepalive_connections=4, keepalive_expiry=30.0)


@attrs.frozen
class WebhookClient:
    destination: Destination
    policy: WebhookPolicy
    guard: UrlPolicy
    transport: httpx.AsyncHTTPTransport


class WebhookClients:
    def __init__(self) -> None:
        self._clients: dict[str, WebhookClient] = {}
        self._retired: list[httpx.AsyncHTTPTransport] = []

    def for_destination(self, destination: Destination) -> WebhookClient:
        """The destination's transport, its delivery policy and URL policy (computed once)."""
        kept = self._clients.get(destination.destination_id)
        if kept is not None and kept.destination == destination:
            return kept
        # A changed destination gets a new transport; the old one is closed by `retain` (the
        # next config save), not here, since a delivery of the old config may be using it.
        policy = webhook_policy(destination)
        client = WebhookClient(
            destination=destination,
            policy=policy,
            guard=UrlPolicy(
                allow_http=policy.allow_insecure_http,
                allow_private=policy.allow_private_networks,
                allowed_hosts=policy.allowed_hosts,
                max_redirects=0,
            ),
            transport=httpx.AsyncHTTPTransport(limits=LIMITS),
        )
        if kept is not None:
            self._retired.append(kept.transport)
        self._clients[destination.destination_id] = client
        return client

    async def retain(self, config: MonitorConfig) -> None:
        """Close the transports of destinations ``config`` no longer has as they were."""
        current = {d.destination_id: d for d in config.destinations if d.kind == "webhook"}
        for destination_id, kept in list(self._clients.items()):
            if current.get(destination_id) != kept.destination:
                del self._clients[destination_id]
                self._retired.append(kept.transport)
        retired, self._retired = self._retired, []
        for transport in retired:
            await transport.aclose()

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        retired, self._retired = self._retired, []
        for transport in [*(c.transport for c in clients), *retired]:
            await transport.aclose()
