"""A stand-in for the public internet: public IPs answered by loopback servers.

The outbound guard refuses loopback unless told otherwise, so a test of what it
*allows* needs a server at a public address. This transport is the network layer
of an ``httpx.AsyncClient``: a request to one of the mapped public IPs goes, over a
real loopback socket, to the server standing in for it; every other destination
goes where it says (and is recorded too). It records the address each request was
sent to (what the guard pinned) and the TLS name it carried, so a test can check
that no request reached a refused address.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import httpx


@attrs.frozen
class Sent:
    address: str
    """The host of the URL the client connected to (an IP when the guard pinned it)."""
    host_header: str
    sni_hostname: str | None
    method: str
    path: str


class InternetTransport(httpx.AsyncBaseTransport):
    def __init__(self, hosts: Mapping[str, str]) -> None:
        """``hosts`` maps a public IP to a loopback base URL (``http://127.0.0.1:<port>``)."""
        self.hosts = dict(hosts)
        self.sent: list[Sent] = []
        self._real = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        sni = request.extensions.get("sni_hostname")
        self.sent.append(
            Sent(
                address=request.url.host,
                host_header=request.headers.get("host", ""),
                sni_hostname=sni if isinstance(sni, str) else None,
                method=request.method,
                path=request.url.path,
            )
        )
        target = self.hosts.get(request.url.host)
        if target is not None:
            base = httpx.URL(target)
            request.url = request.url.copy_with(scheme="http", host=base.host, port=base.port)
        return await self._real.handle_async_request(request)

    async def aclose(self) -> None:
        await self._real.aclose()


__all__ = ["InternetTransport", "Sent"]
