"""One bounded HTTP GET: a deadline, a byte cap and a redirect cap.

Redirects are followed by hand so that each hop is counted and checked (only
http and https, wherever the chain leads).
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import attrs
import httpx
import trio

from .._version import __version__
from ..errors import ValidationFailed
from .types import ToolFailed

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = f"svc-engine/{__version__} (+webfetch)"
ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.8"


@attrs.frozen
class FetchResult:
    url: str
    final_url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool
    encoding: str | None


def check_web_url(url: str, *, field: str = "args.url") -> None:
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValidationFailed(f"{field} must be an http:// or https:// URL", field=field)


async def fetch_url(
    client: httpx.AsyncClient, url: str, *, max_bytes: int, max_redirects: int, time_limit: float
) -> FetchResult:
    """GET ``url`` within ``time_limit`` seconds (redirects included).

    Raises :class:`ToolFailed` on timeout, network errors and too many redirects.
    """
    check_web_url(url)
    with trio.move_on_after(time_limit):
        try:
            return await _follow(client, url, max_bytes=max_bytes, max_redirects=max_redirects)
        except httpx.InvalidURL as exc:
            raise ValidationFailed(
                f"args.url is not a valid URL: {exc}", field="args.url"
            ) from None
        except httpx.HTTPError as exc:
            raise ToolFailed(f"cannot fetch {url}: {exc or type(exc).__name__}", url=url) from None
    raise ToolFailed(
        f"fetching {url} timed out after {round(time_limit * 1000)} ms", url=url, retryable=True
    )


async def _follow(
    client: httpx.AsyncClient, url: str, *, max_bytes: int, max_redirects: int
) -> FetchResult:
    current = url
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    for _hop in range(max_redirects + 1):
        # httpx's own timeouts are off: the whole fetch runs under one trio deadline.
        request = client.build_request("GET", current, headers=headers, timeout=None)
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            location = response.headers.get("location")
            if response.status_code in REDIRECT_STATUSES and location:
                current = urljoin(str(response.url), location)
                if urlsplit(current).scheme.lower() not in ("http", "https"):
                    raise ToolFailed(f"{url} redirected to a non-http URL: {current}", url=url)
                continue
            body, truncated = await _read_capped(response, max_bytes)
            return FetchResult(
                url=url,
                final_url=str(response.url),
                status=response.status_code,
                content_type=response.headers.get("content-type", ""),
                body=body,
                truncated=truncated,
                encoding=response.charset_encoding,
            )
        finally:
            await response.aclose()
    raise ToolFailed(f"too many redirects fetching {url} (more than {max_redirects})", url=url)


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    truncated = False
    with trio.CancelScope() as stop:
        async for chunk in response.aiter_bytes():
            if truncated:
                continue  # buffered data still arriving before the cancellation lands
            room = max_bytes - size
            if len(chunk) > room:
                chunks.append(chunk[:room])
                truncated = True
                # Stop by cancelling *inside* httpx's chain of async generators: the
                # Cancelled unwinds and finishes every one of them, where a break would
                # leave them suspended (and trio warns when those are garbage collected).
                # The rest of a huge download is not worth waiting for.
                stop.cancel()
                continue
            chunks.append(chunk)
            size += len(chunk)
    return b"".join(chunks), truncated


__all__ = ["FetchResult", "check_web_url", "fetch_url"]
