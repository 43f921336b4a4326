"""A fake Slack: the Web API on loopback, and a signed Events API sender.

    async with open_fake_slack(token="xoxb-...") as slack:
        ...
        await slack.send_event(engine_url, secret, {"type": "event_callback", ...})

Web API methods: ``auth.test``, ``chat.postMessage``, ``chat.update`` (the
bearer token is checked: ``invalid_auth`` otherwise). ``rate_limit(method,
retry_after)`` answers the next call with ``429`` and ``Retry-After``. The
sender signs requests the way Slack does: ``v0=`` + HMAC-SHA256 of
``v0:<timestamp>:<body>`` with the signing secret, in ``X-Slack-Signature``,
with ``X-Slack-Request-Timestamp``.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

import attrs
import httpx
import trio

from ._asgi import FakeServer, RecordedRequest, Send, send_json, serve_fake
from .conditions import Changes


@attrs.frozen
class Call:
    method: str
    payload: dict[str, Any]


def sign(secret: str, timestamp: int, body: bytes) -> str:
    base = b"v0:" + str(timestamp).encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


class FakeSlack(FakeServer):
    prefix = "/api"

    def __init__(self, token: str, *, bot_user_id: str = "UBOT") -> None:
        super().__init__()
        self.token = token
        self.bot_user_id = bot_user_id
        self.calls: list[Call] = []
        self.messages: dict[tuple[str, str], str] = {}
        self.changes = Changes()
        self._ts = itertools.count(1)
        self._limited: dict[str, float] = {}

    def rate_limit(self, method: str, retry_after: float) -> None:
        self._limited[method] = retry_after

    def of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def texts(self, channel: str) -> list[str]:
        return [t for (ch, _), t in sorted(self.messages.items()) if ch == channel]

    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        method = request.path.removeprefix("/api/")
        payload = request.body if isinstance(request.body, dict) else {}
        retry = self._limited.pop(method, None)
        self.calls.append(Call(method, payload))
        if retry is not None:
            self.changes.notify()
            await send_json(
                send, 429, {"ok": False, "error": "ratelimited"}, [("Retry-After", str(retry))]
            )
            return
        if request.headers.get("authorization") != f"Bearer {self.token}":
            body: dict[str, Any] = {"ok": False, "error": "invalid_auth"}
        elif method == "auth.test":
            body = {"ok": True, "user_id": self.bot_user_id, "team": "T1", "user": "svc"}
        elif method == "chat.postMessage":
            ts = f"{next(self._ts)}.000100"
            self.messages[(str(payload.get("channel")), ts)] = str(payload.get("text"))
            body = {"ok": True, "ts": ts, "channel": payload.get("channel")}
        elif method == "chat.update":
            key = (str(payload.get("channel")), str(payload.get("ts")))
            if key in self.messages:
                self.messages[key] = str(payload.get("text"))
                body = {"ok": True, "ts": key[1], "channel": key[0]}
            else:
                body = {"ok": False, "error": "message_not_found"}
        else:
            body = {"ok": False, "error": "unknown_method"}
        self.changes.notify()
        await send_json(send, 200, body)


async def send_event(
    client: httpx.AsyncClient,
    secret: str,
    payload: dict[str, Any],
    *,
    timestamp: int | None = None,
    signature: str | None = None,
    form: bool = False,
) -> httpx.Response:
    """POST a signed event (or, with ``form``, an interactive payload) as Slack does."""
    if form:
        body = urlencode({"payload": json.dumps(payload)}).encode()
        content_type = "application/x-www-form-urlencoded"
    else:
        body = json.dumps(payload).encode()
        content_type = "application/json"
    ts = int(time.time()) if timestamp is None else timestamp
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(ts),
        "X-Slack-Signature": signature or sign(secret, ts, body),
    }
    return await client.post("/channels/slack/events", content=body, headers=headers)


@asynccontextmanager
async def open_fake_slack(token: str, **kwargs: Any) -> AsyncIterator[FakeSlack]:
    async with serve_fake(FakeSlack(token, **kwargs)) as server:
        yield server
