"""Discord: the gateway over a websocket (trio-websocket) and the REST API.

Gateway: ``HELLO`` gives the heartbeat interval; the listener sends
``IDENTIFY`` (or ``RESUME`` with its session id and last sequence number
after a drop, so events sent meanwhile are replayed rather than lost),
heartbeats carrying the last sequence number, and expects each to be
acknowledged before the next is due (a missed acknowledgement is a dead
connection: it reconnects and resumes). ``RECONNECT`` and a resumable
``INVALID_SESSION`` resume; a non-resumable one identifies anew. Dispatches:
``READY`` (session id, resume URL, the bot's user id), ``MESSAGE_CREATE``
(prompts, attachments) and ``INTERACTION_CREATE`` (button presses). Messages
are handled once by id, so a replay that overlaps what was already seen
duplicates nothing.

REST (``Authorization: Bot <token>``): create and edit channel messages
(buttons as components), interaction callbacks, ``GET /users/@me`` for
verification; ``429`` waits out ``retry_after``.
"""

from __future__ import annotations

import json
import logging
import ssl
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import trio

from ..net import UrlRefused
from .config import DEFAULT_GATEWAY, MESSAGE_LIMITS
from .listener import ChannelListener, PlatformAuthFailed, PlatformError, sole_error
from .platform import Button, ButtonPress, Inbound, Upload
from .uploads import UploadTooLarge, fetch_capped, file_policy, store_upload

log = logging.getLogger("svc.channels")

FILE_HOSTS = ("cdn.discordapp.com", "media.discordapp.net")
"""Where Discord keeps attachments (their URLs come in the message, from the platform)."""
OP_DISPATCH, OP_HEARTBEAT, OP_IDENTIFY, OP_RESUME = 0, 1, 2, 6
OP_RECONNECT, OP_INVALID_SESSION, OP_HELLO, OP_HEARTBEAT_ACK = 7, 9, 10, 11
# GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT
INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15)
AUTH_FAILED_CLOSE = 4004
MAX_RETRIES = 3
CONNECT_TIMEOUT_S = 30.0
CLOSE_TIMEOUT_S = 2.0
SEEN_MESSAGES = 2000


class GatewayDropped(PlatformError):
    """The Discord gateway connection ended"""

    code = "CHANNEL_DISCONNECTED"


class DiscordListener(ChannelListener):
    name = "discord"
    message_limit = MESSAGE_LIMITS["discord"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session_id: str | None = None
        self.seq: int | None = None
        self.resume_url: str | None = None
        self.bot_user_id: str | None = None
        self.identifies = 0
        self.resumes = 0
        self._seen: OrderedDict[str, None] = OrderedDict()

    # ------------------------------------------------------------------ REST
    async def call(self, method: str, path: str, payload: Mapping[str, Any] | None = None) -> Any:
        url = f"{self.config.api_base('discord')}{path}"
        headers = {"Authorization": f"Bot {self.config.bot_token}"}
        for _attempt in range(MAX_RETRIES + 1):
            response = await self.context.http.request(
                method,
                url,
                json=dict(payload) if payload is not None else None,
                headers=headers,
                timeout=30.0,
            )
            if response.status_code == 429:
                try:
                    retry = float(response.json().get("retry_after", 1))
                except ValueError:
                    retry = float(response.headers.get("Retry-After", "1"))
                await trio.sleep(retry)
                continue
            if response.status_code == 401:
                raise PlatformAuthFailed("Discord refused the bot token")
            if response.status_code >= 400:
                raise PlatformError(
                    f"Discord {method} {path.split('/')[1]}: HTTP {response.status_code}",
                    platformStatus=response.status_code,
                )
            return response.json() if response.content else None
        raise PlatformError("Discord: still rate limited", platformStatus=429)

    async def send(self, conversation: str, text: str, *, buttons: tuple[Button, ...] = ()) -> str:
        payload: dict[str, Any] = {"content": text, "components": _components(buttons)}
        body = await self.call("POST", f"/channels/{conversation}/messages", payload)
        return str(body["id"])

    async def edit(
        self, conversation: str, message_id: str, text: str, *, buttons: tuple[Button, ...] = ()
    ) -> None:
        payload = {"content": text, "components": _components(buttons)}
        await self.call("PATCH", f"/channels/{conversation}/messages/{message_id}", payload)

    async def verify(self) -> dict[str, object]:
        me = await self.call("GET", "/users/@me")
        return {"ok": True, "id": me.get("id"), "username": me.get("username")}

    # ------------------------------------------------------------------ gateway
    async def session(self) -> None:
        import trio_websocket

        url = (self.resume_url if self.session_id else None) or self.config.gateway_url
        url = url or DEFAULT_GATEWAY
        try:
            try:
                async with open_gateway(url) as ws, trio.open_nursery() as nursery:
                    await self._converse(ws, nursery)
            except BaseExceptionGroup as group:
                # The heartbeat task shares the connection's nursery: see the one error.
                leaf = sole_error(group)
                if leaf is None:
                    raise
                raise leaf from None
        except trio_websocket.ConnectionClosed as closed:
            reason = closed.reason
            if reason is not None and reason.code == AUTH_FAILED_CLOSE:
                raise PlatformAuthFailed("Discord refused the bot token") from None
            raise GatewayDropped(
                f"the Discord gateway closed ({reason.code if reason else 'no code'})"
            ) from None
        except trio_websocket.HandshakeError as error:
            raise GatewayDropped(f"the Discord gateway refused the connection: {error}") from None

    async def _converse(self, ws: Any, nursery: trio.Nursery) -> None:
        hello = json.loads(await ws.get_message())
        if hello.get("op") != OP_HELLO:
            raise GatewayDropped("the Discord gateway did not say hello")
        interval = float(hello["d"]["heartbeat_interval"]) / 1000
        acked = [True]
        nursery.start_soon(self._heartbeat, ws, interval, acked, nursery)
        if self.session_id is not None and self.seq is not None:
            self.resumes += 1
            await self._send(
                ws,
                OP_RESUME,
                {
                    "token": self.config.bot_token,
                    "session_id": self.session_id,
                    "seq": self.seq,
                },
            )
        else:
            self.identifies += 1
            await self._send(
                ws,
                OP_IDENTIFY,
                {
                    "token": self.config.bot_token,
                    "intents": INTENTS,
                    "properties": {"os": "linux", "browser": "svc-engine", "device": "svc-engine"},
                },
            )
        while True:
            frame = json.loads(await ws.get_message())
            op = frame.get("op")
            if frame.get("s") is not None:
                self.seq = int(frame["s"])
            if op == OP_HEARTBEAT_ACK:
                acked[0] = True
            elif op == OP_HEARTBEAT:
                await self._send(ws, OP_HEARTBEAT, self.seq)
            elif op == OP_RECONNECT:
                raise GatewayDropped("Discord asked for a reconnect")
            elif op == OP_INVALID_SESSION:
                if not frame.get("d"):
                    self.session_id = self.seq = None  # not resumable: identify anew
                raise GatewayDropped("Discord invalidated the gateway session")
            elif op == OP_DISPATCH:
                await self._dispatch(str(frame.get("t")), frame.get("d") or {}, nursery)

    async def _heartbeat(
        self, ws: Any, interval: float, acked: list[bool], nursery: trio.Nursery
    ) -> None:
        while True:
            await trio.sleep(interval)
            if not acked[0]:
                # No acknowledgement of the last beat: the connection is dead even if the
                # socket is open. Leaving closes it; the listener reconnects and resumes.
                raise GatewayDropped("the Discord gateway stopped acknowledging heartbeats")
            acked[0] = False
            await self._send(ws, OP_HEARTBEAT, self.seq)

    @staticmethod
    async def _send(ws: Any, op: int, data: Any) -> None:
        await ws.send_message(json.dumps({"op": op, "d": data}))

    async def _dispatch(self, kind: str, data: Mapping[str, Any], nursery: trio.Nursery) -> None:
        if kind == "READY":
            self.session_id = str(data.get("session_id"))
            self.resume_url = data.get("resume_gateway_url") or None
            self.bot_user_id = str((data.get("user") or {}).get("id") or "") or None
            self.mark_connected()
        elif kind == "RESUMED":
            self.mark_connected()
        elif kind == "MESSAGE_CREATE":
            message_id = str(data.get("id"))
            if message_id in self._seen:
                return  # replayed after a resume: already handled
            self._seen[message_id] = None
            while len(self._seen) > SEEN_MESSAGES:
                self._seen.popitem(last=False)
            self.spawn(self._message, data)
        elif kind == "INTERACTION_CREATE":
            self.spawn(self._interaction, data)

    async def _message(self, data: Mapping[str, Any]) -> None:
        author = data.get("author") or {}
        if author.get("bot"):
            return
        user_ids = tuple(
            i for i in (str(author.get("id") or ""), str(author.get("username") or "")) if i
        )
        if self.config.tier_of(user_ids) is None:
            return
        guild = data.get("guild_id")
        if self.config.guild_id and guild and str(guild) != self.config.guild_id:
            return
        conversation = str(data.get("channel_id"))
        text = str(data.get("content") or "")
        mentioned = any(str(m.get("id")) == self.bot_user_id for m in data.get("mentions") or [])
        if self.bot_user_id:
            text = (
                text.replace(f"<@{self.bot_user_id}>", "")
                .replace(f"<@!{self.bot_user_id}>", "")
                .strip()
            )
        try:
            uploads = await self._uploads(conversation, data)
        except UploadTooLarge:
            await self.send(conversation, "That file is larger than this chat accepts.")
            return
        except UrlRefused as exc:
            log.warning("a Discord attachment was not fetched: %s", exc.message)
            await self.send(conversation, "That file is not at an address this chat fetches.")
            return
        await self.context.chats.handle_message(
            self,
            self.config,
            Inbound(
                channel="discord",
                conversation=conversation,
                user_ids=user_ids,
                text=text,
                is_group=guild is not None,
                mentioned=mentioned,
                message_id=str(data.get("id")),
                uploads=uploads,
            ),
        )

    async def _uploads(self, conversation: str, data: Mapping[str, Any]) -> tuple[Upload, ...]:
        cap = self.config.max_upload_bytes
        stored = []
        for attachment in data.get("attachments") or []:
            size = attachment.get("size")
            if isinstance(size, int) and size > cap:
                raise UploadTooLarge(limitBytes=cap)
            content = await fetch_capped(
                self.context.http,
                str(attachment.get("url")),
                max_bytes=cap,
                policy=file_policy(self.config.api_base_url, FILE_HOSTS),
            )
            stored.append(
                await store_upload(
                    self.context.state_dir(),
                    "discord",
                    conversation,
                    str(attachment.get("filename") or "attachment"),
                    content,
                    mime=attachment.get("content_type"),
                )
            )
        return tuple(stored)

    async def _interaction(self, data: Mapping[str, Any]) -> None:
        if data.get("type") != 3:  # message components only
            return
        user = (data.get("member") or {}).get("user") or data.get("user") or {}
        press = ButtonPress(
            channel="discord",
            conversation=str(data.get("channel_id")),
            user_ids=tuple(
                i for i in (str(user.get("id") or ""), str(user.get("username") or "")) if i
            ),
            data=str((data.get("data") or {}).get("custom_id") or ""),
            message_id=str((data.get("message") or {}).get("id") or "") or None,
        )
        answer = await self.context.chats.handle_button(self, self.config, press)
        await self.call(
            "POST",
            f"/interactions/{data.get('id')}/{data.get('token')}/callback",
            {"type": 4, "data": {"content": answer, "flags": 64}},
        )


@asynccontextmanager
async def open_gateway(url: str) -> AsyncIterator[Any]:
    """A websocket to the gateway whose socket is closed however the connection ends.

    trio-websocket's ``open_websocket_url`` leaves the client socket open when the
    server closes first (it waits for a TCP close that may never come); here the
    TCP stream is ours, so it is always released.
    """
    import trio_websocket

    parts = urlsplit(url)
    secure = parts.scheme == "wss"
    host = parts.hostname or "localhost"
    port = parts.port or (443 if secure else 80)
    resource = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    stream: trio.SocketStream | trio.SSLStream[trio.SocketStream]
    with trio.fail_after(CONNECT_TIMEOUT_S):
        if secure:
            stream = await trio.open_ssl_over_tcp_stream(
                host, port, ssl_context=ssl.create_default_context()
            )
        else:
            stream = await trio.open_tcp_stream(host, port)
    try:
        async with trio.open_nursery() as nursery:
            ws = await trio_websocket.wrap_client_stream(nursery, stream, host, resource)
            try:
                yield ws
            finally:
                # Shielded and bounded: a polite close even when cancelled, never a hang.
                with trio.move_on_after(CLOSE_TIMEOUT_S, shield=True):
                    await ws.aclose()
                nursery.cancel_scope.cancel()
    finally:
        await trio.aclose_forcefully(stream)


def _components(buttons: tuple[Button, ...]) -> list[dict[str, Any]]:
    if not buttons:
        return []
    return [
        {
            "type": 1,
            "components": [
                {"type": 2, "style": 1, "label": b.label[:80], "custom_id": b.data}
                for b in buttons[:5]
            ],
        }
    ]


__all__ = ["DiscordListener"]
