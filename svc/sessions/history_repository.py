"""A session's history as a whole: forks (a copy of the transcript up to a message, linked
to its parent), children, and hiding the messages after a point (revert) and back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..store import Store, Tx, dumps, loads
from .repository import _MESSAGE_COLS, _SESSION_COLS, _message, _session

if TYPE_CHECKING:
    from .records import Message, Session

REVERTED = "reverted"
"""The message ``info`` flag of a message hidden by a revert."""


class SessionHistoryRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def fork(self, source_id: str, child: Session, copies: list[Message]) -> None:
        """Create ``child`` and its copied transcript in one transaction."""

        def q(tx: Tx) -> None:
            tx.execute(
                f"INSERT INTO sessions({_SESSION_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    child.id,
                    child.title,
                    child.directory,
                    child.project_id,
                    source_id,
                    child.provider_id,
                    child.model_id,
                    dumps(dict(child.settings)),
                    child.source_kind,
                    dumps(child.source_metadata),
                    int(child.archived),
                    dumps(list(child.todos)),
                    child.created_at_ms,
                    child.updated_at_ms,
                ),
            )
            tx.executemany(
                f"INSERT INTO messages({_MESSAGE_COLS}, updated_at_ms) VALUES (?,?,?,?,?,?,?,?)",
                [
                    (
                        m.id,
                        child.id,
                        None,  # runs stay with the parent session
                        m.role,
                        dumps(list(m.parts)),
                        dumps(dict(m.info)),
                        m.created_at_ms,
                        child.created_at_ms,
                    )
                    for m in copies
                ],
            )

        await self._db.write(q)

    async def children(self, parent_id: str) -> list[Session]:
        def q(tx: Tx) -> list[Session]:
            rows = tx.execute(
                f"SELECT {_SESSION_COLS} FROM sessions WHERE parent_id = ? "
                "ORDER BY created_at_ms, id",
                (parent_id,),
            )
            return [_session(r) for r in rows]

        return await self._db.read(q)

    async def all_messages(self, session_id: str) -> list[Message]:
        """Every message, hidden ones included, oldest first."""

        def q(tx: Tx) -> list[Message]:
            rows = tx.execute(
                f"SELECT {_MESSAGE_COLS} FROM messages WHERE session_id = ? ORDER BY seq",
                (session_id,),
            )
            return [_message(r) for r in rows]

        return await self._db.read(q)

    async def set_hidden(self, session_id: str, message_ids: list[str], hidden: bool) -> int:
        """Flag (or unflag) messages as hidden by a revert; returns how many changed."""

        def q(tx: Tx) -> int:
            changed = 0
            for message_id in message_ids:
                row = tx.execute(
                    "SELECT info FROM messages WHERE id = ? AND session_id = ?",
                    (message_id, session_id),
                ).fetchone()
                if row is None:
                    continue
                info: dict[str, Any] = loads(row[0], {})
                if bool(info.get(REVERTED)) == hidden:
                    continue
                if hidden:
                    info[REVERTED] = True
                else:
                    info.pop(REVERTED, None)
                tx.execute("UPDATE messages SET info = ? WHERE id = ?", (dumps(info), message_id))
                changed += 1
            return changed

        return await self._db.write(q)

    async def drop_hidden(self, session_id: str, message_ids: list[str]) -> None:
        """Delete messages a revert hid, once a new prompt makes the revert final."""

        def q(tx: Tx) -> None:
            tx.executemany(
                "DELETE FROM messages WHERE id = ? AND session_id = ?",
                [(m, session_id) for m in message_ids],
            )

        await self._db.write(q)
