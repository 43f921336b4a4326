"""One bounded HTTP GET through the outbound-URL guard: a deadline, a byte cap, a redirect cap.

The guard (:mod:`svc.net`) checks the URL and every redirect hop (scheme, credentials,
private and loopback addresses after DNS) and pins the connection to the checked
address; loopback and private networks are refused unless the operator opts in with
``webfetch_allow_private``.
"""

from __future__ import annotations

import attrs
import httpx
import trio

from .._version import __version__
from ..errors import ValidationFailed
from ..net import UrlPolicy, UrlRefused, check_url_form, guarded_stream
from .types import ToolFailed

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


def web_policy(*, allow_private: bool, max_redirects: int) -> UrlPolicy:
    """What a web tool may fetch: http(s) on public addresses unless private is opted in."""
    return UrlPolicy(allow_http=True, allow_private=allow_private, max_redirects=max_redirects)


def check_web_url(url: str, *, field: str = "args.url", allow_private: bool = False) -> None:
    """The checks that need no DNS, for arguments validated before a fetch."""
    try:
        check_url_form(url, web_policy(allow_private=allow_private, max_redirects=0))
    except UrlRefused as exc:
        raise exc.for_field(field) from None


async def fetch_url(
    client: httpx.AsyncClient,
    url: str,
    *,
    max_bytes: int,
    max_redirects: int,
    time_limit: float,
    allow_private: bool = False,
) -> FetchResult:
    """GET ``url`` within ``time_limit`` seconds (redirects included).

    Raises :class:`UrlRefused` (naming ``args.url``) for a URL or hop the guard refuses,
    :class:`ToolFailed` on timeout, network errors and too many redirects.
    """
    policy = web_policy(allow_private=allow_private, max_redirects=max_redirects)
    with trio.move_on_after(time_limit):
        try:
            return await _fetch(client, url, policy, max_bytes=max_bytes)
        except UrlRefused as exc:
            if exc.reason == "redirect":
                raise ToolFailed(
                    f"too many redirects fetching {url} (more than {max_redirects})", url=url
                ) from None
            raise exc.for_field("args.url") from None
        except httpx.InvalidURL as exc:
            raise ValidationFailed(
                f"args.url is not a valid URL: {exc}", field="args.url"
            ) from None
        except httpx.HTTPError as exc:
            raise ToolFailed(f"cannot fetch {url}: {exc or type(exc).__name__}", url=url) from None
    raise ToolFailed(
        f"fetching {url} timed out after {round(time_limit * 1000)} ms", url=url, retryable=True
    )


async def _fetch(
    client: httpx.AsyncClient, url: str, policy: UrlPolicy, *, max_bytes: int
) -> FetchResult:
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    # httpx's own timeouts are off: the whole fetch runs under one trio deadline.
    async with guarded_stream(client, "GET", url, policy, headers=headers, timeout=None) as reply:
        body, truncated = await _read_capped(reply, max_bytes)
        return FetchResult(
            url=url,
            final_url=str(reply.url),
            status=reply.status_code,
            content_type=reply.headers.get("content-type", ""),
            body=body,
            truncated=truncated,
            encoding=reply.charset_encoding,
        )


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


__all__ = ["FetchResult", "check_web_url", "fetch_url", "web_policy"]
