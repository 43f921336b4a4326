"""``mcp_debug``: one raw ``tools/call`` to an exact URL, for diagnosing a server.

Deliberately below the client: no ``initialize``, no session, one POST with
``id: 1``, and the raw HTTP answer (status, headers, body) as the result, so an
operator sees exactly what the server says. Request header values are secrets:
they are registered for log scrubbing and never echoed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import httpx
import trio

from ..logs import REDACTED, is_secret_name, register_secret
from ..net import UrlPolicy, guarded_stream

DEFAULT_TIMEOUT_MS = 15_000
MIN_TIMEOUT_MS, MAX_TIMEOUT_MS = 1_000, 120_000
DEFAULT_MAX_BYTES = 200_000
MAX_MAX_BYTES = 5_000_000


async def raw_tool_call(
    http: httpx.AsyncClient,
    url: str,
    tool: str,
    args: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    timeout_ms: int,
    max_bytes: int,
    policy: UrlPolicy,
) -> dict[str, Any]:
    """``{status, headers, body, truncated, bytes}`` of one ``tools/call`` POST.

    The URL is the model's choice: it goes through the outbound guard under ``policy``
    (:func:`debug_policy`), connected to the checked address, no redirect followed."""
    for value in headers.values():
        register_secret(value)
    payload = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": dict(args)},
    }
    request_headers = {
        **dict(headers),
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    body = bytearray()
    total = 0
    truncated = False
    async with guarded_stream(
        http,
        "POST",
        url,
        policy,
        content=json.dumps(payload).encode(),
        headers=request_headers,
        timeout=timeout_ms / 1000,
    ) as response:
        with trio.CancelScope() as reading:
            async for chunk in response.aiter_bytes():
                total += len(chunk)
                room = max_bytes - len(body)
                if room > 0:
                    body += chunk[:room]
                if total > max_bytes:
                    # Enough for a diagnosis; stop reading (an SSE stream may never end).
                    # A cancelled scope, not `break`, so httpx's generators close cleanly.
                    truncated = True
                    reading.cancel()
        return {
            "status": response.status_code,
            "headers": {
                k: (REDACTED if is_secret_name(k) or k.lower() == "set-cookie" else v)
                for k, v in response.headers.items()
            },
            "body": body.decode("utf-8", errors="replace"),
            "truncated": truncated,
            "bytes": total,
        }


def debug_policy(url: str, configured: Iterable[str]) -> UrlPolicy:
    """What ``mcp_debug`` may reach: any public http(s) address; a private or loopback one
    only at the origin (scheme, host, port) of a connector the operator configured, since
    a model must not use this tool to reach other services on the engine's network."""
    origin = _origin(url)
    allow_private = origin is not None and any(_origin(other) == origin for other in configured)
    return UrlPolicy(allow_http=True, allow_private=allow_private, max_redirects=0)


def _origin(url: str) -> tuple[str, str, int | None] | None:
    try:
        parsed = httpx.URL(url)
        return parsed.scheme.lower(), parsed.host.lower(), parsed.port
    except (httpx.InvalidURL, ValueError):
        return None


def clamp_timeout(value: int | None) -> int:
    return min(
        max(value if value is not None else DEFAULT_TIMEOUT_MS, MIN_TIMEOUT_MS), MAX_TIMEOUT_MS
    )


def clamp_max_bytes(value: int | None) -> int:
    return min(max(value if value is not None else DEFAULT_MAX_BYTES, 1), MAX_MAX_BYTES)


__all__ = ["clamp_max_bytes", "clamp_timeout", "debug_policy", "raw_tool_call"]
