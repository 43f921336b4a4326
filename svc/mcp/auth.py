"""Authorization challenges: detecting them in MCP payloads and the per-tool cooldown.

Some MCP servers (gateways in front of OAuth'd SaaS APIs) answer a call that
needs the user's consent with an authorization URL, either in a tool result or
in a JSON-RPC error. The connector then records a challenge for that tool and
reports it (``mcp.auth.required``). Calling the same tool again within the
cooldown (about 15 s) is answered at once without touching the network
(``mcp.auth.pending``); only that tool is blocked. After the cooldown the next
call re-probes the server: once the user has authorized, it simply works.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

DEFAULT_MESSAGE = "This tool requires authorization before it can run."
MAX_MESSAGE = 280
_URL_KEYS = ("authorization_url", "authorizationUrl", "auth_url")
_MESSAGE_KEYS = ("message", "text", "llm_instructions")
_URL_IN_TEXT = re.compile(r"https?://[^\s\"'<>)\]]+")
_AUTH_WORDS = re.compile(r"authori[sz]|oauth|sign[ -]?in|log[ -]?in", re.IGNORECASE)


@attrs.frozen
class AuthChallenge:
    """The ``last_auth_challenge`` of a connector."""

    challenge_id: str
    tool_name: str
    """The remote tool's name (the server name for a challenge met while connecting)."""
    authorization_url: str
    message: str
    requested_at_ms: int
    status: str = "pending"

    def to_wire(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> AuthChallenge:
        return cls(**{f.name: data[f.name] for f in attrs.fields(cls) if f.name in data})


@attrs.frozen
class PendingAuth:
    """One tool waiting for authorization (an entry of ``pending_auth_by_tool``)."""

    challenge_id: str
    authorization_url: str
    message: str
    first_seen_ms: int
    last_probe_ms: int
    status: str = "pending"

    def to_wire(self) -> dict[str, Any]:
        return attrs.asdict(self)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> PendingAuth:
        return cls(**{f.name: data[f.name] for f in attrs.fields(cls) if f.name in data})


def challenge_id(tool_name: str, url: str) -> str:
    return hashlib.sha256(f"{tool_name}:{url}".encode()).hexdigest()[:16]


def find_challenge(
    tool_name: str, payload: Mapping[str, Any], *, now_ms: int, failed: bool = False
) -> AuthChallenge | None:
    """The challenge carried by a tool result or a JSON-RPC error object, if any.

    The URL is looked up in ``structuredContent`` first, then at the top level,
    then anywhere in the payload under ``authorization_url``/``authorizationUrl``/
    ``auth_url``. For a failure (``failed``: an error, or a result with
    ``isError``) whose text talks about authorization, a URL in that text counts too.
    """
    url = _find_url(payload)
    if url is None and failed:
        url = _url_in_auth_text(payload)
    if url is None:
        return None
    return AuthChallenge(
        challenge_id=challenge_id(tool_name, url),
        tool_name=tool_name,
        authorization_url=url,
        message=_find_message(payload),
        requested_at_ms=now_ms,
    )


def _find_url(payload: Mapping[str, Any]) -> str | None:
    structured = payload.get("structuredContent")
    for holder in (structured, payload):
        if isinstance(holder, Mapping):
            for key in _URL_KEYS:
                if _is_url(holder.get(key)):
                    return str(holder[key])
    for key, value in _walk(payload):
        if key in _URL_KEYS and _is_url(value):
            return str(value)
    return None


def _url_in_auth_text(payload: Mapping[str, Any]) -> str | None:
    for key, value in _walk(payload):
        if key in _MESSAGE_KEYS and isinstance(value, str) and _AUTH_WORDS.search(value):
            match = _URL_IN_TEXT.search(value)
            if match:
                return match.group(0).rstrip(".,;")
    return None


def _find_message(payload: Mapping[str, Any]) -> str:
    structured = payload.get("structuredContent")
    candidates: list[Any] = []
    for key in ("message", "text"):
        if isinstance(structured, Mapping):
            candidates.append(structured.get(key))
        candidates.append(payload.get(key))
    candidates.append(payload.get("llm_instructions"))
    candidates.extend(value for key, value in _walk(payload) if key in _MESSAGE_KEYS)
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.strip():
            return _tidy(candidate)
    return DEFAULT_MESSAGE


def _tidy(message: str) -> str:
    cut = message.split("Authorize here:", 1)[0]
    text = " ".join(cut.split())
    if not text:
        return DEFAULT_MESSAGE
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower().startswith(("http://", "https://"))


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair in nested mappings and lists, depth first."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key), item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


class AuthLedger:
    """Which tools of one connector wait for authorization, keyed by lower-cased tool name."""

    def __init__(self, cooldown_ms: int, pending: Mapping[str, PendingAuth] | None = None) -> None:
        self.cooldown_ms = cooldown_ms
        self.pending: dict[str, PendingAuth] = dict(pending or {})

    def remaining_ms(self, tool_name: str, now_ms: int) -> int | None:
        """How long the tool stays short-circuited; None if a call may go out."""
        entry = self.pending.get(tool_name.lower())
        if entry is None:
            return None
        remaining = self.cooldown_ms - (now_ms - entry.last_probe_ms)
        return remaining if remaining > 0 else None

    def entry(self, tool_name: str) -> PendingAuth | None:
        return self.pending.get(tool_name.lower())

    def probe(self, tool_name: str, now_ms: int) -> bool:
        """A call goes out for a waiting tool: its cooldown restarts now."""
        key = tool_name.lower()
        entry = self.pending.get(key)
        if entry is None:
            return False
        self.pending[key] = attrs.evolve(entry, last_probe_ms=now_ms)
        return True

    def challenged(self, challenge: AuthChallenge, now_ms: int) -> PendingAuth:
        key = challenge.tool_name.lower()
        previous = self.pending.get(key)
        entry = PendingAuth(
            challenge_id=challenge.challenge_id,
            authorization_url=challenge.authorization_url,
            message=challenge.message,
            first_seen_ms=previous.first_seen_ms if previous else now_ms,
            last_probe_ms=now_ms,
        )
        self.pending[key] = entry
        return entry

    def cleared(self, tool_name: str) -> bool:
        return self.pending.pop(tool_name.lower(), None) is not None

    def clear(self) -> bool:
        had = bool(self.pending)
        self.pending.clear()
        return had

    def to_wire(self) -> dict[str, Any]:
        return {key: entry.to_wire() for key, entry in sorted(self.pending.items())}


def required_text(tool_id: str, challenge: AuthChallenge) -> str:
    return (
        f"Authorization required for `{tool_id}`.\n{challenge.message}\n\n"
        f"Authorize here: {challenge.authorization_url}"
    )


def pending_text(tool_id: str, entry: PendingAuth, remaining_ms: int) -> str:
    return (
        f"Authorization pending for `{tool_id}`.\n{entry.message}\n\n"
        f"Authorize here: {entry.authorization_url}\nRetry after {math.ceil(remaining_ms / 1000)}s."
    )


__all__ = [
    "DEFAULT_MESSAGE",
    "AuthChallenge",
    "AuthLedger",
    "PendingAuth",
    "challenge_id",
    "find_challenge",
    "pending_text",
    "required_text",
]
