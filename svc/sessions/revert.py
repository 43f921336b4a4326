"""Revert and unrevert of a session's transcript (see svc/sessions/history.py).

The session actor calls these one message at a time, so a revert never races a run
(a revert while a run is active is refused) or another revert.
"""

from __future__ import annotations

from typing import Any

import attrs

from .history import REVERT_KEY, file_changes, revert_point
from .history_repository import SessionHistoryRepository
from .records import Session


async def revert(
    services: Any, session: Session, message_id: str | None
) -> tuple[Session, dict[str, Any]]:
    """Hide the messages from ``message_id`` (default: the last prompt) on."""
    repo = SessionHistoryRepository(services.repo.store)
    messages = [m for m in await repo.all_messages(session.id) if not m.info.get("reverted")]
    start = revert_point(messages, message_id)
    hidden = messages[start:]
    ids = [m.id for m in hidden]
    await repo.set_hidden(session.id, ids, True)
    previous = session.settings.get(REVERT_KEY) or {}
    state = {
        "messageID": hidden[0].id,
        "hidden": list(dict.fromkeys([*previous.get("hidden", []), *ids])),
    }
    updated = attrs.evolve(
        session,
        settings={**session.settings, REVERT_KEY: state},
        updated_at_ms=services.clock.now_ms(),
    )
    await services.repo.save(updated)
    files = list(dict.fromkeys(c["path"] for c in file_changes(hidden)))
    services.events.publish(
        "session.reverted", {"sessionID": session.id, "messageID": state["messageID"]}
    )
    return updated, {
        "ok": True,
        "sessionID": session.id,
        "reverted": True,
        "revert": state,
        "hiddenMessages": len(ids),
        "files": files,
        # The engine keeps no earlier contents of workspace files: they stay as they are.
        "workspace": "unchanged",
    }


async def unrevert(services: Any, session: Session) -> tuple[Session, dict[str, Any]]:
    """Bring back what the revert in effect hid (nothing to do without one)."""
    state = session.settings.get(REVERT_KEY) or {}
    ids = list(state.get("hidden", []))
    restored = 0
    if ids:
        repo = SessionHistoryRepository(services.repo.store)
        restored = await repo.set_hidden(session.id, ids, False)
    updated = session
    if REVERT_KEY in session.settings:
        updated = attrs.evolve(
            session,
            settings={k: v for k, v in session.settings.items() if k != REVERT_KEY},
            updated_at_ms=services.clock.now_ms(),
        )
        await services.repo.save(updated)
        services.events.publish("session.unreverted", {"sessionID": session.id})
    return updated, {
        "ok": True,
        "sessionID": session.id,
        "reverted": False,
        "restoredMessages": restored,
    }


async def make_final(services: Any, session: Session) -> Session:
    """A new prompt after a revert: the hidden messages are deleted for good."""
    state = session.settings.get(REVERT_KEY)
    if not state:
        return session
    repo = SessionHistoryRepository(services.repo.store)
    await repo.drop_hidden(session.id, list(state.get("hidden", [])))
    updated = attrs.evolve(
        session, settings={k: v for k, v in session.settings.items() if k != REVERT_KEY}
    )
    await services.repo.save(updated)
    return updated
