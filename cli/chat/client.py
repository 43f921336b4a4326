"""The engine as the chat client sees it: a few HTTP routes and the session's SSE stream.

Every failure is a :class:`ChatError` whose message says what to do (start the
engine, pass a token, pick another session), so the loop can print it as is.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import httpx

STREAM_TIMEOUT = httpx.Timeout(30.0, read=None)
"""The event stream waits as long as a run takes (the engine sends keep-alives)."""


class ChatError(Exception):
    """A failure to show the user; ``code`` is the engine's error code when it sent one."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@attrs.frozen
class RunConflict(Exception):
    """The session already has an active run (``run_id``)."""

    run_id: str | None


class SseParser:
    """SSE lines in, the JSON ``data`` of each complete frame out (comments ignored)."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> dict[str, Any] | None:
        if line == "":
            if not self._data:
                return None
            raw, self._data = "\n".join(self._data), []
            try:
                value = json.loads(raw)
            except ValueError:
                return None  # not ours to interpret: skip the frame, keep the stream
            return value if isinstance(value, dict) else None
        if line.startswith("data:"):
            self._data.append(line[5:].removeprefix(" "))
        return None


class EventStream:
    """The frames of one open ``GET /event`` response; :meth:`next` is ``None`` at its end."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines
        self._parser = SseParser()

    async def next(self) -> dict[str, Any] | None:
        async for line in self._lines:
            event = self._parser.feed(line)
            if event is not None:
                return event
        return None


class EngineClient:
    """Calls to a running engine over ``http`` (its base URL and token already set)."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    @property
    def url(self) -> str:
        return str(self.http.base_url).rstrip("/")

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = await self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from None
        if response.status_code == 409:
            body = _json(response)
            active = body.get("activeRun")
            run_id = active.get("runID") if isinstance(active, dict) else active
            raise RunConflict(run_id if isinstance(run_id, str) else None)
        self._check(response)
        return _json(response) if response.content else {}

    def _unreachable(self, exc: Exception) -> ChatError:
        return ChatError(
            f"cannot reach the engine at {self.url} ({type(exc).__name__}): start it with "
            "`svc-engine serve`, or pass --hostname/--port"
        )

    def _check(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        body = _json(response)
        code = body.get("code") if isinstance(body.get("code"), str) else None
        if response.status_code == 401:
            raise ChatError(
                "the engine requires an API token: pass --token or set SVC_API_TOKEN", code
            )
        message = body.get("error") or body.get("message") or response.text.strip()
        raise ChatError(f"the engine answered {response.status_code}: {message}", code)

    # ------------------------------------------------------------------ routes
    async def providers(self) -> dict[str, Any]:
        body = await self._call("GET", "/config/providers")
        return body if isinstance(body, dict) else {}

    async def create_session(self) -> dict[str, Any]:
        return dict(await self._call("POST", "/session", json={"title": "chat"}))

    async def get_session(self, session_id: str) -> dict[str, Any]:
        try:
            return dict(await self._call("GET", f"/session/{session_id}"))
        except ChatError as exc:
            if exc.code == "SESSION_NOT_FOUND":
                raise ChatError(
                    f"no session `{session_id}` on this engine (/sessions lists them)", exc.code
                ) from None
            raise

    async def recent_sessions(self, limit: int = 10) -> list[dict[str, Any]]:
        body = await self._call("GET", "/session", params={"page_size": limit})
        return [s for s in body if isinstance(s, dict)] if isinstance(body, list) else []

    async def set_model(self, session_id: str, provider: str, model: str) -> None:
        await self._call(
            "PATCH",
            f"/session/{session_id}",
            json={"model": {"providerID": provider, "modelID": model}},
        )

    async def prompt(self, session_id: str, text: str) -> str:
        """Start a run; its id. Raises :class:`RunConflict` if one is active."""
        body = await self._call(
            "POST",
            f"/session/{session_id}/prompt_async",
            params={"return": "run"},
            json={"parts": [{"type": "text", "text": text}]},
        )
        return str(body.get("runID", ""))

    async def abort(self, session_id: str) -> None:
        await self._call("POST", f"/session/{session_id}/abort")

    async def reply_permission(self, request_id: str, reply: str) -> None:
        await self._call("POST", f"/permission/{request_id}/reply", json={"reply": reply})

    async def reply_question(self, question_id: str, answers: list[list[str]]) -> None:
        await self._call("POST", f"/question/{question_id}/reply", json={"answers": answers})

    async def reject_question(self, question_id: str) -> None:
        await self._call("POST", f"/question/{question_id}/reject")

    @asynccontextmanager
    async def events(self, session_id: str) -> AsyncIterator[EventStream]:
        """The session's live events, subscribed before this yields.

        The engine subscribes before it sends its first frame (``server.connected``),
        so a run started after that frame arrives loses no event.
        """
        try:
            async with self.http.stream(
                "GET", "/event", params={"sessionID": session_id}, timeout=STREAM_TIMEOUT
            ) as response:
                if response.status_code >= 400:
                    await response.aread()
                    self._check(response)
                stream = EventStream(response.aiter_lines())
                await stream.next()  # server.connected
                yield stream
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from None


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return {}
