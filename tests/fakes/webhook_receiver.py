"""A webhook receiver on loopback that verifies the engine's signature as a customer would.

It parses ``x-svc-signature: t=<ms>,v1=<hex>``, recomputes HMAC-SHA256 over
``"<ms>.<raw body>"`` with the shared secret, compares in constant time, and records
each delivery with whether it verified. ``statuses`` scripts the HTTP answers (the
last one repeats); a ``redirect_to`` answers every POST with a redirect instead.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs

from tests.fakes.web_server import Reply, Request, WebServer, json_reply, redirect, serve_asgi


def verify(secret: str, header: str, body: bytes) -> bool:
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    if "t" not in parts or "v1" not in parts:
        return False
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
    return hmac.compare_digest(expected.hexdigest(), parts["v1"])


@attrs.frozen
class Delivery:
    headers: dict[str, str]
    body: bytes
    verified: bool

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.body)  # type: ignore[no-any-return]


@attrs.define
class WebhookReceiver:
    secret: str
    statuses: list[int] = attrs.field(factory=lambda: [200])
    redirect_to: str | None = None
    deliveries: list[Delivery] = attrs.field(factory=list)
    url: str = ""
    server: WebServer | None = None

    def answer(self, request: Request) -> Reply:
        if self.redirect_to is not None:
            return redirect(self.redirect_to, 307)
        header = request.headers.get("x-svc-signature", "")
        self.deliveries.append(
            Delivery(request.headers, request.body, verify(self.secret, header, request.body))
        )
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        return json_reply({"received": True}, status=status)


@asynccontextmanager
async def open_webhook_receiver(secret: str, **options: Any) -> AsyncIterator[WebhookReceiver]:
    receiver = WebhookReceiver(secret, **options)
    server = WebServer({"/hooks/incidents": receiver.answer})
    async with serve_asgi(server.app) as base:
        server.url = base
        receiver.server = server
        receiver.url = f"{base}/hooks/incidents"
        yield receiver
