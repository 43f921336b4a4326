"""Questions asked by runs, in the store."""

from __future__ import annotations

from typing import Any

from ..store import Store, Tx, dumps, loads
from .question_records import QuestionRequest

_COLS = (
    "id, questions, status, requested_at_ms, expires_at_ms, session_id, run_id, call_id, "
    "message_id, answers"
)
_UPDATES = ", ".join(f"{c.strip()} = excluded.{c.strip()}" for c in _COLS.split(",")[1:])


def _row(q: QuestionRequest) -> tuple[Any, ...]:
    return (
        q.id,
        dumps([dict(x) for x in q.questions]),
        q.status,
        q.requested_at_ms,
        q.expires_at_ms,
        q.session_id,
        q.run_id,
        q.call_id,
        q.message_id,
        dumps([list(a) for a in q.answers]) if q.answers is not None else None,
    )


def _question(row: tuple[Any, ...]) -> QuestionRequest:
    answers = loads(row[9])
    return QuestionRequest(
        id=row[0],
        questions=tuple(loads(row[1], [])),
        status=row[2],
        requested_at_ms=row[3],
        expires_at_ms=row[4],
        session_id=row[5],
        run_id=row[6],
        call_id=row[7],
        message_id=row[8],
        answers=tuple(tuple(a) for a in answers) if answers is not None else None,
    )


def _save(tx: Tx, q: QuestionRequest) -> None:
    tx.execute(
        f"INSERT INTO questions({_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?) "
        f"ON CONFLICT (id) DO UPDATE SET {_UPDATES}",
        _row(q),
    )


def _expire_pending(tx: Tx) -> None:
    tx.execute("UPDATE questions SET status = 'expired' WHERE status = 'pending'")


class QuestionRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def expire_pending(self) -> None:
        """At start-up: questions left pending by a previous process expire."""
        await self._db.write(_expire_pending)

    async def save(self, question: QuestionRequest) -> None:
        await self._db.write(_save, question)

    async def get(self, question_id: str) -> QuestionRequest | None:
        def q(tx: Tx) -> QuestionRequest | None:
            row = tx.execute(
                f"SELECT {_COLS} FROM questions WHERE id = ?", (question_id,)
            ).fetchone()
            return _question(row) if row else None

        return await self._db.read(q)

    async def pending(self) -> list[QuestionRequest]:
        def q(tx: Tx) -> list[QuestionRequest]:
            rows = tx.execute(
                f"SELECT {_COLS} FROM questions WHERE status = 'pending' ORDER BY requested_at_ms"
            )
            return [_question(r) for r in rows]

        return await self._db.read(q)
