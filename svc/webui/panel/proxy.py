"""The panel's forwarding of ``/engine/<path>`` to the engine, at the ASGI level.

The browser's requests (SSE streams above all) go through here on every page,
so they skip the web framework: the request is checked (Host, Origin, the
panel's own access token), forwarded on the one pooled client with the engine
token and ``x-svc-request-source: control_panel`` added, and the engine's
answer is passed on chunk by chunk as it arrives, unchanged (no re-framing, no
per-chunk work beyond one ``send``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import httpx
import trio

from .config import SOURCE, PanelConfig
from .guard import host_allowed, origin_allowed

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

API_PREFIX = "/engine"

# Request headers worth forwarding; anything else (cookies, the browser's own
# credentials, hop-by-hop headers) stays at the panel.
FORWARD_REQUEST = frozenset(
    {"accept", "content-type", "last-event-id", "idempotency-key", "x-svc-idempotency-key"}
)
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"transfer-encoding",
        b"te",
        b"trailer",
        b"upgrade",
        b"server",
        b"date",
    }
)
ANSWERED_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"})


def _token_matches(presented: str | None, expected: str) -> bool:
    a = hashlib.sha256((presented or "").encode()).digest()
    b = hashlib.sha256(expected.encode()).digest()
    return presented is not None and hmac.compare_digest(a, b)


def presented_token(headers: dict[str, str]) -> str | None:
    for name in ("x-agent-token", "x-svc-token"):
        if value := headers.get(name):
            return value.strip()
    scheme, _, credential = (headers.get("authorization") or "").partition(" ")
    return credential.strip() if scheme.lower() == "bearer" else None


def refusal(headers: dict[str, str], config: PanelConfig, port: int) -> tuple[int, str, str] | None:
    """Why the panel will not answer this request (status, code, message), or None."""
    host = headers.get("host")
    if not host_allowed(host, bind_host=config.host, port=port):
        return 403, "HOST_NOT_ALLOWED", f"host `{host}` is not this control panel"
    origin = headers.get("origin")
    if origin is not None and not origin_allowed(origin, host_header=host, port=port):
        return 403, "ORIGIN_NOT_ALLOWED", f"requests from `{origin}` are not allowed"
    return None


class EngineProxy:
    """ASGI app: ``/engine/...`` forwarded here, everything else to ``inner`` (the page)."""

    def __init__(self, inner: ASGIApp, config: PanelConfig, client: httpx.AsyncClient) -> None:
        self.inner = inner
        self.config = config
        self.client = client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(API_PREFIX + "/"):
            await self.inner(scope, receive, send)
            return
        headers: dict[str, str] = {}
        for key, value in scope["headers"]:
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        server = scope.get("server")
        port = int(server[1]) if server and server[1] is not None else self.config.port
        refused = refusal(headers, self.config, port)
        if refused is None and scope["method"] not in ANSWERED_METHODS:
            refused = 405, "METHOD_NOT_ALLOWED", f"{scope['method']} is not forwarded"
        token = self.config.access_token
        if (
            refused is None
            and token is not None
            and not _token_matches(presented_token(headers), token)
        ):
            refused = 401, "AUTH_REQUIRED", "Unauthorized: missing or invalid access token"
        if refused is not None:
            await _answer_json(send, *refused)
            return
        body = b""
        if scope["method"] not in ("GET", "HEAD"):
            try:
                read = await _read_body(receive, self.config.max_body_bytes)
            except _Gone:
                return  # the browser left before sending its whole request: nothing to forward
            if read is None:
                await _answer_json(send, 413, "PAYLOAD_TOO_LARGE", "the request body is too large")
                return
            body = read
        await self._forward(scope, headers, body, receive, send)

    async def _forward(
        self, scope: Scope, headers: dict[str, str], body: bytes, receive: Receive, send: Send
    ) -> None:
        config = self.config
        forwarded = {k: v for k, v in headers.items() if k in FORWARD_REQUEST}
        forwarded["x-svc-request-source"] = SOURCE
        if config.engine_token:
            forwarded["X-Agent-Token"] = config.engine_token
        # The raw path as the browser sent it (no decoding and re-encoding on the way).
        raw = scope.get("raw_path") or scope["path"].encode()
        target = raw[len(API_PREFIX) :].decode("latin-1")
        query = scope.get("query_string") or b""
        url = config.engine_url + target + (f"?{query.decode('latin-1')}" if query else "")
        request = self.client.build_request(scope["method"], url, headers=forwarded, content=body)
        try:
            upstream = await self.client.send(request, stream=True)
        except httpx.HTTPError as exc:
            await _answer_json(
                send,
                502,
                "ENGINE_UNREACHABLE",
                f"the engine at {config.engine_url} did not answer: {type(exc).__name__}",
            )
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": upstream.status_code,
                    "headers": [
                        (k, v) for k, v in upstream.headers.raw if k.lower() not in HOP_BY_HOP
                    ],
                }
            )
            async with trio.open_nursery() as nursery:
                # The browser leaving ends the relay (an SSE stream would otherwise
                # wait on the engine for as long as the engine stays quiet).
                nursery.start_soon(_cancel_on_disconnect, receive, nursery.cancel_scope)
                await _relay(upstream, send)
                nursery.cancel_scope.cancel()
        finally:
            # Shielded and bounded: the engine's side of the stream must be closed even when
            # the browser went away (this task is being cancelled), not left to linger.
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await upstream.aclose()


async def _relay(upstream: httpx.Response, send: Send) -> None:
    """Pass the engine's bytes on as they come; what arrives while a write is under way
    goes out with the next write (one ``send`` for many small SSE frames when the
    browser side is the slower one), unchanged."""
    pending = bytearray()
    arrived = trio.Event()
    finished = False

    async def read() -> None:
        nonlocal finished
        # Ended by exhaustion or by cancellation (both finish httpx's generators cleanly).
        async for chunk in upstream.aiter_raw():
            pending.extend(chunk)
            arrived.set()
        finished = True
        arrived.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        while True:
            await arrived.wait()
            arrived = trio.Event()
            if pending:
                data = bytes(pending)
                pending.clear()
                await send({"type": "http.response.body", "body": data, "more_body": True})
            if finished and not pending:
                break
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _cancel_on_disconnect(receive: Receive, scope: trio.CancelScope) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            scope.cancel()
            return


class _Gone(Exception):
    """The browser disconnected mid-request."""


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None past ``limit`` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Gone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


async def _answer_json(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": message, "code": code, "retryable": False}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


__all__ = ["API_PREFIX", "EngineProxy", "presented_token", "refusal"]
