"""A fake Discord: the gateway (websocket) and the REST API on one loopback server.

    async with open_fake_discord(token="...") as dc:
        # configure gateway_url=dc.gateway_url, api_base_url=dc.url
        dc.message(channel_id="C1", user_id="42", content="hi")
        await dc.changes.until(lambda: dc.texts("C1") == ["hi"])

Gateway: ``HELLO`` (``heartbeat_interval`` of ``heartbeat_ms``), then
``IDENTIFY`` (wrong token: close 4004) gives ``READY`` with a session id and
``resume_gateway_url``; ``RESUME`` with that session id replays every event
after the given sequence number (``replay_overlap`` more before it, to check
the client drops duplicates) and sends ``RESUMED``. Heartbeats are recorded and
acknowledged unless ``ack_heartbeats`` is off. Events dispatched while no
connection is up wait for the resume. ``drop()`` closes the connection.

REST: ``POST``/``PATCH /channels/{id}/messages[/{mid}]``, interaction
callbacks, ``GET /users/@me``; ``Authorization: Bot <token>`` checked;
``rate_limit(retry_after)`` answers the next REST call with ``429``. The CDN:
``attach(name, data)`` keeps a file at ``/attachments/<name>`` (no token, as the
real CDN) and returns the attachment object a message carries.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import trio

from ._asgi import FakeServer, Receive, RecordedRequest, Scope, Send, send_json, serve_fake
from .conditions import Changes


@attrs.frozen
class Call:
    method: str
    path: str
    payload: Any


class FakeDiscord(FakeServer):
    prefix = "/api/v10"

    def __init__(self, token: str, *, heartbeat_ms: int = 45_000) -> None:
        super().__init__()
        self.token = token
        self.heartbeat_ms = heartbeat_ms
        self.ack_heartbeats = True
        self.replay_overlap = 0
        self.bot_id = "B1"
        self.session_id = "gateway-session-1"
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        """Every dispatch with its sequence number (what RESUME replays from)."""
        self.received: list[dict[str, Any]] = []
        """Every gateway frame the client sent."""
        self.calls: list[Call] = []
        self.messages: dict[tuple[str, int], str] = {}
        self.changes = Changes()
        self.connections = 0
        self._ids = itertools.count(1000)
        self._live: trio.MemorySendChannel[dict[str, Any]] | None = None
        self._drop = trio.Event()
        self._retry_after: float | None = None
        self.files: dict[str, bytes] = {}

    @property
    def gateway_url(self) -> str:
        return self.root_url.replace("http://", "ws://") + "/gateway"

    # ------------------------------------------------------------------ scripting
    def dispatch(self, kind: str, data: dict[str, Any]) -> None:
        self.seq += 1
        frame = {"op": 0, "t": kind, "s": self.seq, "d": data}
        self.events.append(frame)
        if self._live is not None:
            self._live.send_nowait(frame)

    def message(
        self,
        *,
        channel_id: str,
        user_id: str,
        content: str,
        guild_id: str | None = None,
        mention_bot: bool = False,
        attachments: list[dict[str, Any]] | None = None,
    ) -> str:
        message_id = str(next(self._ids))
        self.dispatch(
            "MESSAGE_CREATE",
            {
                "id": message_id,
                "channel_id": channel_id,
                "guild_id": guild_id,
                "author": {"id": user_id, "username": f"user{user_id}"},
                "content": content,
                "mentions": [{"id": self.bot_id}] if mention_bot else [],
                "attachments": attachments or [],
            },
        )
        return message_id

    def attach(self, name: str, data: bytes, *, base: str | None = None) -> dict[str, Any]:
        """A file on the fake CDN, as a message's attachment (``base``: another origin
        to name in its URL)."""
        self.files[name] = data
        return {
            "id": str(next(self._ids)),
            "filename": name,
            "size": len(data),
            "content_type": "text/plain",
            "url": f"{base or self.root_url}/attachments/{name}",
        }

    def press(self, *, channel_id: str, user_id: str, message_id: int, custom_id: str) -> None:
        self.dispatch(
            "INTERACTION_CREATE",
            {
                "id": str(next(self._ids)),
                "token": "interaction-token",
                "type": 3,
                "channel_id": channel_id,
                "member": {"user": {"id": user_id}},
                "message": {"id": str(message_id)},
                "data": {"custom_id": custom_id},
            },
        )

    def drop(self) -> None:
        self._drop.set()

    def rate_limit(self, retry_after: float) -> None:
        self._retry_after = retry_after

    # ------------------------------------------------------------------ reading
    def ops(self, op: int) -> list[dict[str, Any]]:
        return [f for f in self.received if f.get("op") == op]

    def texts(self, channel_id: str) -> list[str]:
        return [t for (ch, _), t in sorted(self.messages.items()) if ch == channel_id]

    def of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    # ------------------------------------------------------------------ serving
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._gateway(receive, send)
        else:
            await super().__call__(scope, receive, send)

    async def _gateway(self, receive: Receive, send: Send) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        self.connections += 1
        self._drop = trio.Event()
        live_send, live_receive = trio.open_memory_channel[dict[str, Any]](1000)

        async def out(frame: dict[str, Any]) -> None:
            await send({"type": "websocket.send", "text": json.dumps(frame)})

        await out({"op": 10, "d": {"heartbeat_interval": self.heartbeat_ms}})
        async with trio.open_nursery() as nursery:

            async def pump() -> None:
                async for frame in live_receive:
                    await out(frame)

            async def dropper() -> None:
                await self._drop.wait()
                self._live = None
                await send({"type": "websocket.close", "code": 4000})
                nursery.cancel_scope.cancel()

            nursery.start_soon(pump)
            nursery.start_soon(dropper)
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    if self._live is live_send:
                        self._live = None
                    nursery.cancel_scope.cancel()
                    break
                frame = json.loads(message.get("text") or "{}")
                self.received.append(frame)
                self.changes.notify()
                op = frame.get("op")
                if op == 1 and self.ack_heartbeats:
                    await out({"op": 11})
                elif op == 2:
                    if frame["d"].get("token") != self.token:
                        await send({"type": "websocket.close", "code": 4004})
                        nursery.cancel_scope.cancel()
                        break
                    self._live = live_send
                    self.dispatch(
                        "READY",
                        {
                            "session_id": self.session_id,
                            "resume_gateway_url": self.gateway_url,
                            "user": {"id": self.bot_id, "username": "svc-bot"},
                        },
                    )
                elif op == 6:
                    after = int(frame["d"].get("seq") or 0) - self.replay_overlap
                    for event in self.events:
                        if event["s"] > after:
                            await out(event)
                    self._live = live_send
                    self.seq += 1
                    await out({"op": 0, "t": "RESUMED", "s": self.seq, "d": {}})
        self.changes.notify()

    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        path = request.path.removeprefix(self.prefix)
        self.calls.append(Call(request.method, path, request.body))
        self.changes.notify()
        if request.method == "GET" and path.startswith("/attachments/"):
            data = self.files.get(path.removeprefix("/attachments/"))
            status = 200 if data is not None else 404
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": data or b"", "more_body": False})
            return
        if self._retry_after is not None:
            retry, self._retry_after = self._retry_after, None
            await send_json(
                send,
                429,
                {"message": "You are being rate limited.", "retry_after": retry, "global": False},
                [("Retry-After", str(retry))],
            )
            return
        if request.headers.get("authorization") != f"Bot {self.token}":
            await send_json(send, 401, {"message": "401: Unauthorized", "code": 0})
            return
        parts = path.strip("/").split("/")
        body = request.body if isinstance(request.body, dict) else {}
        if request.method == "GET" and path == "/users/@me":
            await send_json(send, 200, {"id": self.bot_id, "username": "svc-bot"})
        elif request.method == "POST" and parts[0] == "channels" and parts[2:] == ["messages"]:
            message_id = next(self._ids)
            self.messages[(parts[1], message_id)] = str(body.get("content"))
            self.changes.notify()
            await send_json(send, 200, {"id": str(message_id), "channel_id": parts[1]})
        elif request.method == "PATCH" and parts[0] == "channels" and len(parts) == 4:
            key = (parts[1], int(parts[3]))
            if key not in self.messages:
                await send_json(send, 404, {"message": "Unknown Message", "code": 10008})
                return
            self.messages[key] = str(body.get("content"))
            self.changes.notify()
            await send_json(send, 200, {"id": parts[3], "channel_id": parts[1]})
        elif request.method == "POST" and parts[0] == "interactions":
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            await send_json(send, 404, {"message": "404: Not Found", "code": 0})


@asynccontextmanager
async def open_fake_discord(token: str, **kwargs: Any) -> AsyncIterator[FakeDiscord]:
    async with serve_fake(FakeDiscord(token, **kwargs)) as server:
        yield server
