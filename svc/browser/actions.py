"""What a browser tool does, with the network policy applied around every step.

The requested URL is checked before a browser goes there; the URL it landed
on (after redirects, after every click, key or wait) is checked after, and a
session that ends up outside the allowlist is closed on the spot. Calls that
only read a page check the session's current URL first.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus

from ..logs import REDACTED
from .errors import BrowserError, PolicyDenied
from .policy import check_url
from .sessions import BrowserSessionEntry

if TYPE_CHECKING:
    from .service import BrowserService

NAVIGATION_BUDGET = 60.0
"""Seconds a call that loads a page may take (the sidecar bounds each load at 20 s)."""


def _action_budget(params: Mapping[str, Any]) -> float:
    timeout_ms = params.get("timeout_ms")
    waited = timeout_ms / 1000 if isinstance(timeout_ms, int) else 15.0
    return waited + NAVIGATION_BUDGET


class BrowserActions:
    def __init__(self, service: BrowserService) -> None:
        self.service = service

    async def _landed(self, entry: BrowserSessionEntry, url: str | None) -> None:
        """Record where the session is now; close it if that is outside the policy."""
        if not url:
            return
        entry.url = url
        try:
            check_url(url, self.service.allowed_hosts)
        except PolicyDenied as exc:
            await self.service.close_quietly(entry.session_id)
            raise PolicyDenied(
                f"host_not_allowed: the session landed on a URL the policy refuses and was "
                f"closed ({exc.message})",
                code="host_not_allowed",
                session_id=entry.session_id,
            ) from None

    def _entry(self, session_id: str, owner: str | None) -> BrowserSessionEntry:
        entry = self.service.sessions.require(session_id, owner)
        check_url(entry.url, self.service.allowed_hosts)
        return entry

    async def open(self, owner: str | None, url: str, options: Mapping[str, Any]) -> dict[str, Any]:
        service = self.service
        check_url(url, service.allowed_hosts)
        config = service.config
        if len(service.sessions) + service.opening >= config.max_sessions:
            raise BrowserError(
                f"browser_max_sessions: {config.max_sessions} browser sessions are open "
                "(`browser.max_sessions`); close one first",
                code="browser_max_sessions",
                status=429,
            )
        viewport = options.get("viewport") or config.default_viewport.model_dump()
        params = {
            "url": url,
            "profile_id": options.get("profile_id"),
            "headless": options.get("headless", config.headless_default),
            "viewport": viewport,
            "wait_until": options.get("wait_until"),
            # The engine's configuration, never the caller's choice.
            "executable_path": config.executable_path,
            "user_data_root": config.user_data_root,
            "allow_no_sandbox": config.allow_no_sandbox,
            "headless_default": config.headless_default,
        }
        service.opening += 1
        try:
            result, connection = await service.call_on_any(
                "browser.open", params, timeout=NAVIGATION_BUDGET
            )
            entry = service.sessions.add(result["session_id"], owner, url, connection)
            service.added()
        finally:
            service.opening -= 1
        await self._landed(entry, result.get("final_url"))
        return result

    async def navigate(
        self, owner: str | None, session_id: str, url: str, wait_until: str | None
    ) -> dict[str, Any]:
        entry = self.service.sessions.require(session_id, owner)
        check_url(url, self.service.allowed_hosts)
        result = await self.service.call_session(
            entry,
            "browser.navigate",
            {"url": url, "wait_until": wait_until},
            timeout=NAVIGATION_BUDGET,
        )
        await self._landed(entry, result.get("final_url"))
        return scrub(result, entry.secrets)

    async def act(
        self,
        owner: str | None,
        session_id: str,
        method: str,
        params: Mapping[str, Any],
        *,
        secret: str | None = None,
    ) -> dict[str, Any]:
        """click, type, press or wait: the landing URL is checked afterwards. ``secret`` is a
        value about to be typed: from now on it is scrubbed from this session's results."""
        entry = self._entry(session_id, owner)
        if secret:
            entry.secrets.add(secret)
        result = await self.service.call_session(
            entry, method, params, timeout=_action_budget(params)
        )
        await self._landed(entry, result.get("final_url"))
        return scrub(result, entry.secrets)

    async def read(
        self, owner: str | None, session_id: str, method: str, params: Mapping[str, Any]
    ) -> dict[str, Any]:
        """snapshot, extract or screenshot of a session on an allowed URL."""
        entry = self._entry(session_id, owner)
        result = await self.service.call_session(entry, method, params, timeout=NAVIGATION_BUDGET)
        if method == "browser.snapshot":
            await self._landed(entry, result.get("url"))
        return scrub(result, entry.secrets)

    async def close(self, owner: str | None, session_id: str) -> dict[str, Any]:
        self.service.sessions.require(session_id, owner)
        closed = await self.service.close_quietly(session_id)
        return {"session_id": session_id, "closed": closed}


def scrub(value: Any, secrets: set[str]) -> Any:
    """``value`` with every secret replaced by ``[REDACTED]`` in every string it holds.

    A page may echo what was typed (a GET form puts it in the URL, a page may print
    it); images are the one thing this cannot reach (docs/browser.md says so)."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
            # A URL carries it encoded.
            value = value.replace(quote_plus(secret), REDACTED).replace(quote(secret), REDACTED)
        return value
    if isinstance(value, Mapping):
        return {k: scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, secrets) for v in value]
    return value


def decode_png(result: Mapping[str, Any], key: str) -> bytes:
    return base64.b64decode(result.get(key) or "")
