"""A fake Telegram Bot API (long polling) on loopback, scripted by tests.

    async with open_fake_telegram(token="123:abc") as tg:
        tg.push_message(chat_id=7, user_id=42, text="hello")
        await tg.changes.until(lambda: tg.final_text(7) == "hello")

Methods: ``getMe``, ``getUpdates`` (``offset`` honoured, long poll up to
``timeout`` seconds, ended early by a new update), ``sendMessage``,
``editMessageText``, ``answerCallbackQuery``, ``getFile`` and the file
download at ``/file/bot<token>/<path>``. A wrong token is ``401``. The server
keeps every update it was given and filters only by ``offset`` (it does not
remember confirmations), so a client that forgets its offset sees old updates
again. ``rate_limit(method, retry_after)`` answers the next call of ``method``
with ``429`` and ``parameters.retry_after``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import trio

from ._asgi import FakeServer, RecordedRequest, Send, send_json, serve_fake
from .conditions import Changes


@attrs.frozen
class Call:
    method: str
    payload: dict[str, Any]


class FakeTelegram(FakeServer):
    def __init__(self, token: str, *, username: str = "svc_test_bot") -> None:
        super().__init__()
        self.token = token
        self.username = username
        self.bot_id = 999
        self.updates: list[dict[str, Any]] = []
        self.calls: list[Call] = []
        self.files: dict[str, bytes] = {}
        self.messages: dict[tuple[str, int], str] = {}
        """(chat, message id) -> current text of what the bot posted."""
        self.changes = Changes()
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(100)
        self._new_update = trio.Event()
        self._limited: dict[str, float] = {}

    # ------------------------------------------------------------------ scripting
    def _push(self, update: dict[str, Any]) -> dict[str, Any]:
        update["update_id"] = next(self._update_ids)
        self.updates.append(update)
        self._new_update.set()
        self._new_update = trio.Event()
        return update

    def push_message(
        self,
        *,
        chat_id: int,
        user_id: int,
        text: str | None = None,
        username: str | None = None,
        chat_type: str = "private",
        document: dict[str, Any] | None = None,
        caption: str | None = None,
    ) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "from": {"id": user_id, "is_bot": False, "username": username},
            "chat": {"id": chat_id, "type": chat_type},
            "date": 0,
        }
        if text is not None:
            message["text"] = text
        if document is not None:
            message["document"] = document
        if caption is not None:
            message["caption"] = caption
        return self._push({"message": message})

    def push_file(self, file_id: str, data: bytes) -> None:
        self.files[file_id] = data

    def push_callback(
        self, *, chat_id: int, user_id: int, message_id: int, data: str
    ) -> dict[str, Any]:
        return self._push(
            {
                "callback_query": {
                    "id": f"cb{next(self._update_ids)}",
                    "from": {"id": user_id, "is_bot": False},
                    "message": {"message_id": message_id, "chat": {"id": chat_id}},
                    "data": data,
                }
            }
        )

    def rate_limit(self, method: str, retry_after: float) -> None:
        self._limited[method] = retry_after

    # ------------------------------------------------------------------ reading
    def of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def texts(self, chat_id: int) -> list[str]:
        """Current texts of the bot's messages in a chat, oldest first."""
        return [t for (chat, _), t in sorted(self.messages.items()) if chat == str(chat_id)]

    def keyboard_messages(self, chat_id: int) -> list[Call]:
        return [
            c
            for c in self.of("sendMessage")
            if str(c.payload.get("chat_id")) == str(chat_id)
            and (c.payload.get("reply_markup") or {}).get("inline_keyboard")
        ]

    # ------------------------------------------------------------------ serving
    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        path = request.path
        prefix, file_prefix = f"/bot{self.token}/", f"/file/bot{self.token}/"
        if path.startswith(file_prefix):
            data = self.files.get(path[len(file_prefix) :].rsplit("/", 1)[-1])
            if data is None:
                await send_json(send, 404, {"ok": False, "description": "Not Found"})
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-length", str(len(data)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": data, "more_body": False})
            return
        if not path.startswith(prefix):
            await send_json(
                send, 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
            )
            return
        method = path[len(prefix) :]
        payload = request.body if isinstance(request.body, dict) else {}
        retry = self._limited.pop(method, None)
        if retry is not None:
            self._record(method, payload)
            await send_json(
                send,
                429,
                {
                    "ok": False,
                    "error_code": 429,
                    "description": f"Too Many Requests: retry after {retry}",
                    "parameters": {"retry_after": retry},
                },
            )
            return
        if method == "getUpdates":
            result: Any = await self._get_updates(payload, stop)
        else:
            result = self._answer(method, payload)
        self._record(method, payload)
        if result is None:
            await send_json(send, 400, {"ok": False, "error_code": 400, "description": "bad"})
        else:
            await send_json(send, 200, {"ok": True, "result": result})

    def _record(self, method: str, payload: dict[str, Any]) -> None:
        self.calls.append(Call(method, json.loads(json.dumps(payload))))
        self.changes.notify()

    async def _get_updates(self, payload: dict[str, Any], stop: trio.Event) -> list[Any]:
        offset = int(payload.get("offset") or 0)

        def pending() -> list[dict[str, Any]]:
            return [u for u in self.updates if u["update_id"] >= offset]

        if not pending():
            with trio.move_on_after(float(payload.get("timeout") or 0)):
                while not pending() and not stop.is_set():
                    new, stopped = self._new_update, stop
                    async with trio.open_nursery() as nursery:

                        async def wake(event: trio.Event) -> None:
                            await event.wait()
                            nursery.cancel_scope.cancel()

                        nursery.start_soon(wake, new)
                        nursery.start_soon(wake, stopped)
        return pending()

    def _answer(self, method: str, payload: dict[str, Any]) -> Any:
        if method == "getMe":
            return {"id": self.bot_id, "is_bot": True, "username": self.username}
        if method == "sendMessage":
            message_id = next(self._message_ids)
            chat = str(payload.get("chat_id"))
            self.messages[(chat, message_id)] = str(payload.get("text"))
            return {"message_id": message_id, "chat": {"id": payload.get("chat_id")}}
        if method == "editMessageText":
            key = (str(payload.get("chat_id")), int(payload.get("message_id") or 0))
            if key not in self.messages:
                return None
            self.messages[key] = str(payload.get("text"))
            return {"message_id": key[1]}
        if method == "answerCallbackQuery":
            return True
        if method == "getFile":
            file_id = str(payload.get("file_id"))
            if file_id not in self.files:
                return None
            return {
                "file_id": file_id,
                "file_size": len(self.files[file_id]),
                "file_path": f"documents/{file_id}",
            }
        return None


@asynccontextmanager
async def open_fake_telegram(token: str, **kwargs: Any) -> AsyncIterator[FakeTelegram]:
    async with serve_fake(FakeTelegram(token, **kwargs)) as server:
        yield server
