"""The engine's book of open browser sessions: who owns each, where it is, when it was used.

A browser session belongs to the engine session that opened it; another engine
session naming it is refused. Times are Trio's clock (monotonic, MockClock-friendly).
"""

from __future__ import annotations

import attrs
import trio

from .errors import BrowserError, SessionNotFound


@attrs.define
class BrowserSessionEntry:
    session_id: str
    owner: str | None
    """The engine session that opened it (None: opened outside any session, e.g. by HTTP)."""
    url: str
    last_used: float
    connection: object
    """The sidecar connection it was opened on (its browser dies with that sidecar)."""
    secrets: set[str] = attrs.field(factory=set)
    """Values typed from a ``secret_ref``: scrubbed from everything this session returns."""


class SessionBook:
    def __init__(self) -> None:
        self._entries: dict[str, BrowserSessionEntry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def add(
        self, session_id: str, owner: str | None, url: str, connection: object
    ) -> BrowserSessionEntry:
        entry = BrowserSessionEntry(session_id, owner, url, trio.current_time(), connection)
        self._entries[session_id] = entry
        return entry

    def require(self, session_id: str, owner: str | None) -> BrowserSessionEntry:
        """The entry, touched; refused if unknown or owned by another engine session."""
        entry = self._entries.get(session_id)
        if entry is None:
            raise SessionNotFound(
                f"browser_session_not_found: session `{session_id}` not found",
                session_id=session_id,
            )
        if entry.owner != owner:
            raise BrowserError(
                f"browser_session_forbidden: browser session `{session_id}` belongs to a "
                "different engine session",
                code="browser_session_forbidden",
                status=403,
            )
        entry.last_used = trio.current_time()
        return entry

    def remove(self, session_id: str) -> BrowserSessionEntry | None:
        return self._entries.pop(session_id, None)

    def clear(self) -> list[str]:
        ids = list(self._entries)
        self._entries.clear()
        return ids

    def idle(self, older_than: float) -> list[str]:
        """Sessions last used more than ``older_than`` seconds ago."""
        cutoff = trio.current_time() - older_than
        return [e.session_id for e in self._entries.values() if e.last_used <= cutoff]

    def next_idle_deadline(self, timeout: float) -> float | None:
        if not self._entries:
            return None
        return min(e.last_used for e in self._entries.values()) + timeout
