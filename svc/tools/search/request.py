"""One JSON request to a search backend, with errors that never carry a key."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import httpx

from ...logs import REDACTED
from ..types import ToolFailed


def scrub(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


async def request_json(
    client: httpx.AsyncClient,
    backend: str,
    method: str,
    url: str,
    *,
    secrets: Iterable[str] = (),
    **kwargs: Any,
) -> Any:
    """The decoded JSON body; :class:`ToolFailed` for network errors, bad statuses and bad JSON.

    httpx's own timeouts are off: the caller bounds the whole search with a trio deadline.
    """
    secrets = tuple(secrets)
    try:
        response = await client.request(method, url, timeout=None, follow_redirects=False, **kwargs)
    except httpx.TimeoutException:
        raise ToolFailed(f"{backend} search timed out", backend=backend, retryable=True) from None
    except httpx.HTTPError as exc:
        detail = scrub(str(exc) or type(exc).__name__, secrets)
        raise ToolFailed(
            f"{backend} search failed: {detail}", backend=backend, retryable=True
        ) from None
    if response.status_code >= 400:
        # The body is not echoed: some services reflect request headers in error pages.
        raise ToolFailed(
            f"{backend} search failed: HTTP {response.status_code}",
            backend=backend,
            http_status=response.status_code,
            retryable=response.status_code in (429, 502, 503, 504),
        )
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ToolFailed(
            f"{backend} search returned a body that is not JSON", backend=backend
        ) from None


__all__ = ["request_json", "scrub"]
