"""Sending a guarded request: connect only to checked addresses, re-check every redirect.

The request goes to the checked IP itself (the URL's host replaced by it), while the
``Host`` header and TLS (SNI and certificate verification, through httpcore's
``sni_hostname`` extension) keep the original name. No second DNS lookup happens
between the check and the connection, so an answer that changes in between (DNS
rebinding) cannot move the request to another address. httpx never follows a
redirect: each hop is checked here like the first URL, up to ``max_redirects``.

A caller sends through an ``httpx.AsyncClient`` or straight through an
``httpx.AsyncBaseTransport``: a caller that needs none of the client's layers (cookies,
auth flows, event hooks, proxies from the environment) skips their cost per request,
which is most of a loopback POST's overhead over the bare transport.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from .guard import CheckedUrl, Resolver, UrlPolicy, UrlRefused, check_url

Sender = httpx.AsyncClient | httpx.AsyncBaseTransport
"""What a guarded request goes out through: a client, or a bare transport."""
# A bare transport has no client default: the same five seconds as httpx's.
TRANSPORT_TIMEOUT = httpx.Timeout(5.0)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Headers that must not follow a redirect to another origin.
CREDENTIAL_HEADERS = ("authorization", "cookie", "proxy-authorization")


@asynccontextmanager
async def guarded_stream(
    client: Sender,
    method: str,
    url: str,
    policy: UrlPolicy,
    *,
    resolver: Resolver | None = None,
    **kwargs: Any,
) -> AsyncIterator[httpx.Response]:
    """Send ``method url`` under ``policy``; yield the final response, body not yet read.

    ``kwargs`` are those of ``client.build_request`` (headers, content, json, timeout,
    ...); through a bare transport, those of ``httpx.Request`` and ``timeout``. Raises
    :class:`UrlRefused` when any hop is refused (nothing is sent to a refused URL) and
    httpx errors for network failures. The response's ``url`` is the logical URL of the
    last hop, not the IP connected to. The response is closed when the block exits, also
    on cancellation.
    """
    current, current_method = url, method
    hops = 0
    while True:
        checked = await check_url(current, policy, resolver=resolver)
        response = await _send_pinned(client, current_method, checked, kwargs)
        location = response.headers.get("location")
        if response.status_code not in REDIRECT_STATUSES or not location:
            break
        await response.aclose()
        if hops >= policy.max_redirects:
            raise UrlRefused(
                f"{_shown(url)} redirected more than {policy.max_redirects} time(s)",
                reason="redirect",
            )
        hops += 1
        try:
            target = str(httpx.URL(current).join(location))
        except (httpx.InvalidURL, ValueError):
            raise UrlRefused(
                f"{_shown(url)} redirected to an invalid URL", reason="invalid_url"
            ) from None
        kwargs = _redirect_kwargs(kwargs, response.status_code, current_method, current, target)
        if response.status_code == 303 or (
            response.status_code in (301, 302) and current_method == "POST"
        ):
            current_method = "GET"
        current = target
    try:
        yield response
    finally:
        await response.aclose()


async def guarded_request(
    client: Sender,
    method: str,
    url: str,
    policy: UrlPolicy,
    *,
    resolver: Resolver | None = None,
    **kwargs: Any,
) -> httpx.Response:
    """:func:`guarded_stream` with the body read (for small bodies)."""
    async with guarded_stream(client, method, url, policy, resolver=resolver, **kwargs) as reply:
        await reply.aread()
        return reply


async def _send_pinned(
    client: Sender, method: str, checked: CheckedUrl, kwargs: dict[str, Any]
) -> httpx.Response:
    addresses = checked.addresses
    if not addresses:
        # A policy that does not resolve is for clients that connect themselves.
        raise UrlRefused(
            "this URL policy does not resolve names, so it cannot pin a connection",
            reason="unresolvable",
        )
    last_error: httpx.ConnectError | None = None
    for address in addresses:
        request = _build(client, method, checked.url, kwargs)
        logical = request.url
        # build_request set Host from the original URL; only the connection target moves.
        request.url = logical.copy_with(host=address)
        request.extensions = {**request.extensions, "sni_hostname": _sni(logical)}
        try:
            if isinstance(client, httpx.AsyncClient):
                response = await client.send(request, stream=True, follow_redirects=False)
            else:
                # the transport maps its errors to httpx's, ConnectError included
                response = await client.handle_async_request(request)
        except httpx.ConnectError as exc:
            last_error = exc  # try the next checked address, as a resolver's caller would
            continue
        # Callers see the URL they asked for, not the address connected to (the URL
        # object is reused: parsing it again cost a noticeable share of a loopback POST).
        response.request = httpx.Request(method, logical)
        return response
    assert last_error is not None
    raise last_error


def _build(client: Sender, method: str, url: str, kwargs: dict[str, Any]) -> httpx.Request:
    if isinstance(client, httpx.AsyncClient):
        return client.build_request(method, url, **kwargs)
    args = dict(kwargs)
    # as with a client: no `timeout` is the default, an explicit None is no timeout
    timeout = httpx.Timeout(args.pop("timeout")) if "timeout" in args else TRANSPORT_TIMEOUT
    return httpx.Request(method, url, extensions={"timeout": timeout.as_dict()}, **args)


def _sni(url: httpx.URL) -> str:
    return url.raw_host.decode("ascii")


def _redirect_kwargs(
    kwargs: dict[str, Any], status: int, method: str, source: str, target: str
) -> dict[str, Any]:
    result = dict(kwargs)
    if status == 303 or (status in (301, 302) and method == "POST"):
        for key in ("content", "data", "files", "json"):
            result.pop(key, None)
    if httpx.URL(source).netloc != httpx.URL(target).netloc or (
        httpx.URL(source).scheme != httpx.URL(target).scheme
    ):
        headers = httpx.Headers(result.get("headers"))
        for name in CREDENTIAL_HEADERS:
            headers.pop(name, None)
        result["headers"] = headers
    return result


def _shown(url: str) -> str:
    """The URL for a message: never its credentials."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        return "the URL"
    return str(parsed.copy_with(username=None, password=None)) if parsed.userinfo else url


__all__ = ["Sender", "guarded_request", "guarded_stream"]
