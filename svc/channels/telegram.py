"""Telegram: the Bot API over long polling.

``getUpdates`` with the stored offset (kept in the channel repository, so a
restart continues where the last listener stopped and never answers a message
twice), ``sendMessage`` and ``editMessageText`` for streamed answers, inline
keyboards and ``answerCallbackQuery`` for approvals, ``getFile`` plus the file
download for uploads, ``getMe`` for the bot's own name (mentions) and
verification. ``429`` answers are honoured with their ``retry_after``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import trio

from .config import MESSAGE_LIMITS
from .listener import ChannelListener, PlatformAuthFailed, PlatformError
from .platform import Button, ButtonPress, Inbound, Upload
from .uploads import UploadTooLarge, fetch_capped, file_policy, store_upload

log = logging.getLogger("svc.channels")

FILE_HOSTS = ("api.telegram.org",)
"""Where Telegram serves files (``/file/bot<token>/<path>`` of the API base)."""

OFFSET_KEY = "telegram.offset"
MAX_RETRIES = 3


class TelegramListener(ChannelListener):
    name = "telegram"
    message_limit = MESSAGE_LIMITS["telegram"]

    bot_id: str | None = None
    bot_username: str | None = None

    # ------------------------------------------------------------------ Bot API
    def _url(self, method: str) -> str:
        return f"{self.config.api_base('telegram')}/bot{self.config.bot_token}/{method}"

    async def call(
        self, method: str, payload: Mapping[str, Any] | None = None, *, timeout: float = 30.0
    ) -> Any:
        """One Bot API method; waits out ``429`` (``parameters.retry_after``) up to 3 times."""
        for _attempt in range(MAX_RETRIES + 1):
            response = await self.context.http.post(
                self._url(method), json=dict(payload or {}), timeout=timeout
            )
            try:
                body = response.json()
            except ValueError:
                body = {}
            if response.status_code == 429:
                retry = float((body.get("parameters") or {}).get("retry_after", 1))
                await trio.sleep(retry)
                continue
            if response.status_code == 401 or (method == "getMe" and response.status_code == 404):
                raise PlatformAuthFailed(
                    "Telegram refused the bot token", platformStatus=response.status_code
                )
            if not body.get("ok"):
                description = str(body.get("description") or f"HTTP {response.status_code}")
                raise PlatformError(
                    f"Telegram {method}: {description}", platformStatus=response.status_code
                )
            return body.get("result")
        raise PlatformError(f"Telegram {method}: still rate limited", platformStatus=429)

    # ------------------------------------------------------------------ ChatPlatform
    async def send(self, conversation: str, text: str, *, buttons: tuple[Button, ...] = ()) -> str:
        payload: dict[str, Any] = {"chat_id": conversation, "text": text}
        if buttons:
            payload["reply_markup"] = _keyboard(buttons)
        result = await self.call("sendMessage", payload)
        return str(result["message_id"])

    async def edit(
        self, conversation: str, message_id: str, text: str, *, buttons: tuple[Button, ...] = ()
    ) -> None:
        payload: dict[str, Any] = {
            "chat_id": conversation,
            "message_id": int(message_id),
            "text": text,
        }
        payload["reply_markup"] = _keyboard(buttons)
        try:
            await self.call("editMessageText", payload)
        except PlatformError as error:
            if "not modified" not in error.message:
                raise

    # ------------------------------------------------------------------ listening
    async def verify(self) -> dict[str, object]:
        me = await self.call("getMe")
        return {"ok": True, "id": me.get("id"), "username": me.get("username")}

    async def session(self) -> None:
        me = await self.call("getMe")
        self.bot_id, self.bot_username = str(me.get("id")), me.get("username")
        stored = await self.context.repo.get_state("telegram", OFFSET_KEY)
        offset = int(stored) if stored is not None else None
        self.mark_connected()
        while True:
            payload: dict[str, Any] = {
                "timeout": self.config.poll_timeout_s,
                "allowed_updates": ["message", "callback_query"],
            }
            if offset is not None:
                payload["offset"] = offset
            updates = await self.call(
                "getUpdates", payload, timeout=self.config.poll_timeout_s + 10.0
            )
            if not updates:
                continue
            offset = max(int(u["update_id"]) for u in updates) + 1
            # Stored before the updates have any effect, so a restart never answers one
            # twice; their handling starts meanwhile (reads only until `recorded` returns).
            recorded = _Recorded()
            for update in updates:
                self.spawn(self._handle, (update, recorded))
            try:
                await self.context.repo.put_state(
                    "telegram", OFFSET_KEY, str(offset), now_ms=self.context.now_ms()
                )
                recorded.ok = True
            finally:
                recorded.done.set()

    async def _handle(self, item: tuple[Mapping[str, Any], _Recorded]) -> None:
        update, recorded = item
        chats = self.context.chats
        if "callback_query" in update:
            await recorded.wait()
            query = update["callback_query"]
            message = query.get("message") or {}
            press = ButtonPress(
                channel="telegram",
                conversation=str((message.get("chat") or {}).get("id")),
                user_ids=_user_ids(query.get("from") or {}),
                data=str(query.get("data") or ""),
                message_id=str(message.get("message_id")) if message else None,
            )
            answer = await chats.handle_button(self, self.config, press)
            await self.call(
                "answerCallbackQuery", {"callback_query_id": query.get("id"), "text": answer[:190]}
            )
            return
        message = update.get("message")
        if not isinstance(message, Mapping):
            return
        sender = message.get("from") or {}
        if sender.get("is_bot"):
            return
        chat = message.get("chat") or {}
        conversation = str(chat.get("id"))
        text = str(message.get("text") or message.get("caption") or "")
        mentioned = False
        if self.bot_username and f"@{self.bot_username}".lower() in text.lower():
            mentioned = True
            text = _strip_mention(text, self.bot_username)
        replied = (message.get("reply_to_message") or {}).get("from") or {}
        if self.bot_id and str(replied.get("id")) == self.bot_id:
            mentioned = True
        user_ids = _user_ids(sender)
        # Access is decided before anything is fetched or stored for the sender.
        if self.config.tier_of(user_ids) is None:
            return
        uploads: tuple[Upload, ...] = ()
        try:
            if message.get("document") or message.get("photo"):
                await recorded.wait()  # storing an upload is an effect
            uploads = await self._uploads(conversation, message)
        except UploadTooLarge:
            await self.send(conversation, "That file is larger than this chat accepts.")
            return
        await chats.handle_message(
            self,
            self.config,
            Inbound(
                channel="telegram",
                conversation=conversation,
                user_ids=user_ids,
                text=text,
                is_group=chat.get("type") in ("group", "supergroup"),
                mentioned=mentioned,
                message_id=str(message.get("message_id")),
                uploads=uploads,
                recorded=recorded.wait,
            ),
        )

    async def _uploads(self, conversation: str, message: Mapping[str, Any]) -> tuple[Upload, ...]:
        wanted: list[tuple[str, str, str | None, int | None]] = []
        document = message.get("document")
        if isinstance(document, Mapping):
            wanted.append(
                (
                    str(document.get("file_id")),
                    str(document.get("file_name") or "document"),
                    document.get("mime_type"),
                    document.get("file_size"),
                )
            )
        photos = message.get("photo")
        if isinstance(photos, list) and photos:
            largest = photos[-1]
            wanted.append(
                (
                    str(largest.get("file_id")),
                    f"photo-{message.get('message_id')}.jpg",
                    "image/jpeg",
                    largest.get("file_size"),
                )
            )
        cap = self.config.max_upload_bytes
        stored = []
        for file_id, filename, mime, size in wanted:
            if isinstance(size, int) and size > cap:
                raise UploadTooLarge(limitBytes=cap)
            info = await self.call("getFile", {"file_id": file_id})
            path = str(info.get("file_path") or "")
            base = self.config.api_base("telegram")
            url = f"{base}/file/bot{self.config.bot_token}/{path}"
            # the file's URL is the configured API base's: its host is the operator's
            policy = file_policy(self.config.api_base_url, FILE_HOSTS)
            data = await fetch_capped(self.context.http, url, max_bytes=cap, policy=policy)
            stored.append(
                await store_upload(
                    self.context.state_dir(), "telegram", conversation, filename, data, mime=mime
                )
            )
        return tuple(stored)


class _Recorded:
    """Whether a batch of updates' offset is stored (see ``Inbound.recorded``)."""

    def __init__(self) -> None:
        self.done = trio.Event()
        self.ok = False

    async def wait(self) -> None:
        await self.done.wait()
        if not self.ok:
            # Not stored: the platform delivers the update again; answering now could
            # answer it twice.
            raise PlatformError("the Telegram offset could not be stored; update left for later")


def _keyboard(buttons: tuple[Button, ...]) -> dict[str, Any]:
    return {
        "inline_keyboard": [[{"text": b.label, "callback_data": b.data} for b in buttons]]
        if buttons
        else []
    }


def _user_ids(sender: Mapping[str, Any]) -> tuple[str, ...]:
    ids = [str(sender.get("id", ""))]
    username = sender.get("username")
    if username:
        ids += [str(username), f"@{username}"]
    return tuple(i for i in ids if i)


def _strip_mention(text: str, username: str) -> str:
    lowered, token = text.lower(), f"@{username}".lower()
    at = lowered.find(token)
    return (text[:at] + text[at + len(token) :]).strip() if at >= 0 else text


__all__ = ["OFFSET_KEY", "TelegramListener"]
