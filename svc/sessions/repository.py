"""Sessions, messages and runs in SQLite."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

import attrs

from ..store import Store, Tx, dumps, loads

# The records are imported where rows become records: a fresh store has none to
# read at start-up (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .records import Message, Run, Session

_SESSION_COLS = (
    "id, title, directory, project_id, parent_id, provider_id, model_id, settings, source_kind, "
    "source_metadata, archived, todos, created_at_ms, updated_at_ms"
)


def _session(row: tuple[Any, ...]) -> Session:
    from .records import Session

    return Session(
        id=row[0],
        title=row[1],
        directory=row[2],
        project_id=row[3],
        parent_id=row[4],
        provider_id=row[5],
        model_id=row[6],
        settings=loads(row[7], {}),
        source_kind=row[8],
        source_metadata=loads(row[9]),
        archived=bool(row[10]),
        todos=tuple(loads(row[11], [])),
        created_at_ms=row[12],
        updated_at_ms=row[13],
    )


_MESSAGE_COLS = "id, session_id, run_id, role, parts, info, created_at_ms"
_MAX_SEQ = 2**63 - 1


def _message(row: tuple[Any, ...]) -> Message:
    from .records import Message

    return Message(
        id=row[0],
        session_id=row[1],
        run_id=row[2],
        role=row[3],
        parts=tuple(loads(row[4], [])),
        info=loads(row[5], {}),
        created_at_ms=row[6],
    )


def _visible(messages: Iterable[Message]) -> list[Message]:
    """Messages a revert did not hide (svc/sessions/history.py)."""
    return [m for m in messages if not m.info.get("reverted")]


_RUN_COLS = (
    "id, session_id, status, source, provider_id, model_id, client_id, agent_id, idempotency_key, "
    "request_hash, allowed_tools, user_message_id, assistant_message_id, error_code, "
    "error_message, failure_category, usage, metadata, started_at_ms, last_activity_at_ms, "
    "finished_at_ms"
)
_RUN_UPSERT = (
    f"INSERT INTO runs({_RUN_COLS}) VALUES ({','.join('?' * 21)}) ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c.strip()} = excluded.{c.strip()}" for c in _RUN_COLS.split(",")[1:])
)
_MESSAGE_UPSERT = (
    f"INSERT INTO messages({_MESSAGE_COLS}, updated_at_ms) VALUES (?,?,?,?,?,?,?,?) "
    "ON CONFLICT(id) DO UPDATE SET parts = excluded.parts, info = excluded.info, "
    "updated_at_ms = excluded.updated_at_ms"
)


def _run(row: tuple[Any, ...]) -> Run:
    from .records import Run, Usage

    allowed = loads(row[10])
    return Run(
        id=row[0],
        session_id=row[1],
        status=row[2],
        source=row[3],
        provider_id=row[4],
        model_id=row[5],
        client_id=row[6],
        agent_id=row[7],
        idempotency_key=row[8],
        request_hash=row[9],
        allowed_tools=tuple(allowed) if allowed is not None else None,
        user_message_id=row[11],
        assistant_message_id=row[12],
        error_code=row[13],
        error_message=row[14],
        failure_category=row[15],
        usage=Usage(**loads(row[16], {})),
        metadata=loads(row[17], {}),
        started_at_ms=row[18],
        last_activity_at_ms=row[19],
        finished_at_ms=row[20],
    )


def _run_params(run: Run) -> tuple[Any, ...]:
    return (
        run.id,
        run.session_id,
        run.status,
        run.source,
        run.provider_id,
        run.model_id,
        run.client_id,
        run.agent_id,
        run.idempotency_key,
        run.request_hash,
        dumps(list(run.allowed_tools)) if run.allowed_tools is not None else None,
        run.user_message_id,
        run.assistant_message_id,
        run.error_code,
        run.error_message,
        run.failure_category,
        dumps(attrs.asdict(run.usage)),
        dumps(dict(run.metadata)),
        run.started_at_ms,
        run.last_activity_at_ms,
        run.finished_at_ms,
    )


class SessionRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    @property
    def store(self) -> Store:
        """The store, for the other session repositories (history)."""
        return self._db

    # ------------------------------------------------------------ sessions
    async def create(self, session: Session) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                f"INSERT INTO sessions({_SESSION_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    session.id,
                    session.title,
                    session.directory,
                    session.project_id,
                    session.parent_id,
                    session.provider_id,
                    session.model_id,
                    dumps(dict(session.settings)),
                    session.source_kind,
                    dumps(session.source_metadata),
                    int(session.archived),
                    dumps(list(session.todos)),
                    session.created_at_ms,
                    session.updated_at_ms,
                ),
            )

        await self._db.write(q)

    async def save(self, session: Session) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "UPDATE sessions SET title=?, directory=?, project_id=?, parent_id=?, "
                "provider_id=?, model_id=?, settings=?, source_kind=?, source_metadata=?, "
                "archived=?, todos=?, updated_at_ms=? WHERE id=?",
                (
                    session.title,
                    session.directory,
                    session.project_id,
                    session.parent_id,
                    session.provider_id,
                    session.model_id,
                    dumps(dict(session.settings)),
                    session.source_kind,
                    dumps(session.source_metadata),
                    int(session.archived),
                    dumps(list(session.todos)),
                    session.updated_at_ms,
                    session.id,
                ),
            )

        await self._db.write(q)

    async def get(self, session_id: str) -> Session | None:
        def q(tx: Tx) -> Session | None:
            row = tx.execute(
                f"SELECT {_SESSION_COLS} FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            return _session(row) if row else None

        return await self._db.read(q)

    async def list_sessions(
        self,
        *,
        query: str | None = None,
        archived: bool | None = False,
        directory: str | None = None,
        source_kind: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> list[Session]:
        def q(tx: Tx) -> list[Session]:
            clauses: list[str] = []
            params: list[Any] = []
            if archived is not None:
                clauses.append("archived = ?")
                params.append(int(archived))
            if query:
                clauses.append("title LIKE ? ESCAPE '\\'")
                params.append(
                    "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                )
            if directory:
                clauses.append("directory = ?")
                params.append(directory)
            if source_kind:
                clauses.append("source_kind = ?")
                params.append(source_kind)
            where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
            sql = (
                f"SELECT {_SESSION_COLS} FROM sessions {where} "
                "ORDER BY updated_at_ms DESC, id LIMIT ? OFFSET ?"
            )
            return [_session(r) for r in tx.execute(sql, (*params, limit, offset))]

        return await self._db.read(q)

    async def delete(self, session_id: str) -> bool:
        def q(tx: Tx) -> bool:
            tx.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
            tx.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            return tx.changes() > 0

        return await self._db.write(q)

    # ------------------------------------------------------------ messages
    async def add_message(self, message: Message, *, touch_session_ms: int | None = None) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                f"INSERT INTO messages({_MESSAGE_COLS}, updated_at_ms) VALUES (?,?,?,?,?,?,?,?)",
                (
                    message.id,
                    message.session_id,
                    message.run_id,
                    message.role,
                    dumps(list(message.parts)),
                    dumps(dict(message.info)),
                    message.created_at_ms,
                    message.created_at_ms,
                ),
            )
            if touch_session_ms is not None:
                tx.execute(
                    "UPDATE sessions SET updated_at_ms = ? WHERE id = ?",
                    (touch_session_ms, message.session_id),
                )

        await self._db.write(q)

    async def save_message(self, message: Message, *, now_ms: int) -> None:
        """Insert or replace a message (parts are rewritten as they complete)."""

        def q(tx: Tx) -> None:
            tx.execute(
                _MESSAGE_UPSERT,
                (
                    message.id,
                    message.session_id,
                    message.run_id,
                    message.role,
                    dumps(list(message.parts)),
                    dumps(dict(message.info)),
                    message.created_at_ms,
                    now_ms,
                ),
            )

        await self._db.write(q)

    async def get_message(self, message_id: str) -> Message | None:
        def q(tx: Tx) -> Message | None:
            row = tx.execute(
                f"SELECT {_MESSAGE_COLS} FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            return _message(row) if row else None

        return await self._db.read(q)

    async def messages(self, session_id: str) -> list[Message]:
        """The session's whole visible transcript, oldest first (for a reader that shows
        or copies all of it; a run reads :meth:`recent_messages`)."""

        def q(tx: Tx) -> list[Message]:
            rows = tx.execute(
                f"SELECT {_MESSAGE_COLS} FROM messages WHERE session_id = ? ORDER BY seq",
                (session_id,),
            )
            return _visible(_message(r) for r in rows)

        return await self._db.read(q)

    async def messages_by_id(self, session_id: str, ids: Collection[str]) -> dict[str, Message]:
        """The visible messages of the session among ``ids``, by id (one indexed read,
        however long the transcript: a reader that fell behind the session, such as the
        exchange recorder under load, reads what it needs and not the whole history)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}

        def q(tx: Tx) -> dict[str, Message]:
            marks = ",".join("?" for _ in wanted)
            rows = tx.execute(
                f"SELECT {_MESSAGE_COLS} FROM messages WHERE id IN ({marks}) AND session_id = ?",
                (*wanted, session_id),
            )
            return {m.id: m for m in _visible(map(_message, rows))}

        return await self._db.read(q)

    async def recent_messages(
        self, session_id: str, count: int, *, skip: Collection[str] = ()
    ) -> list[Message]:
        """The newest ``count`` visible messages of the session, oldest first, leaving out
        the ids in ``skip`` and the messages of runs in ``skip``.

        A run reads only the history it replays to the model: a long session's whole
        transcript, parsed for every run, made each run slower and its memory larger
        the longer the session grew. Read newest first in pages, until ``count`` are
        found (a revert hides messages, so one page may not be enough).
        """

        def q(tx: Tx) -> list[Message]:
            found: list[Message] = []
            before = _MAX_SEQ
            page = count + 8
            while len(found) < count:
                rows = tx.execute(
                    f"SELECT {_MESSAGE_COLS}, seq FROM messages WHERE session_id = ? "
                    "AND seq < ? ORDER BY seq DESC LIMIT ?",
                    (session_id, before, page),
                ).fetchall()
                found += _visible(
                    m for m in map(_message, rows) if m.id not in skip and m.run_id not in skip
                )
                if len(rows) < page:
                    break
                before = rows[-1][-1]
                page *= 2
            found = found[:count]
            found.reverse()
            return found

        return await self._db.read(q)

    # ------------------------------------------------------------ runs
    async def save_run(self, run: Run) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                _RUN_UPSERT,
                _run_params(run),
            )

        await self._db.write(q)

    async def start_run(self, run: Run, user_message: Message | None) -> None:
        """Record a new run and its user message in one transaction."""

        def q(tx: Tx) -> None:
            tx.execute(
                f"INSERT INTO runs({_RUN_COLS}) VALUES ({','.join('?' * 21)})", _run_params(run)
            )
            if user_message is not None:
                tx.execute(
                    f"INSERT INTO messages({_MESSAGE_COLS}, updated_at_ms) "
                    "VALUES (?,?,?,?,?,?,?,?)",
                    (
                        user_message.id,
                        user_message.session_id,
                        user_message.run_id,
                        user_message.role,
                        dumps(list(user_message.parts)),
                        dumps(dict(user_message.info)),
                        user_message.created_at_ms,
                        user_message.created_at_ms,
                    ),
                )
            tx.execute(
                "UPDATE sessions SET updated_at_ms = ? WHERE id = ?",
                (run.started_at_ms, run.session_id),
            )

        await self._db.write(q)

    async def get_run(self, run_id: str) -> Run | None:
        def q(tx: Tx) -> Run | None:
            row = tx.execute(f"SELECT {_RUN_COLS} FROM runs WHERE id = ?", (run_id,)).fetchone()
            return _run(row) if row else None

        return await self._db.read(q)

    async def run_by_idempotency(self, session_id: str, key: str) -> Run | None:
        def q(tx: Tx) -> Run | None:
            row = tx.execute(
                f"SELECT {_RUN_COLS} FROM runs WHERE session_id = ? AND idempotency_key = ?",
                (session_id, key),
            ).fetchone()
            return _run(row) if row else None

        return await self._db.read(q)

    async def runs(
        self, *, session_id: str | None = None, status: str | None = None, limit: int = 100
    ) -> list[Run]:
        def q(tx: Tx) -> list[Run]:
            clauses: list[str] = []
            params: list[Any] = []
            if session_id is not None:
                clauses.append("session_id = ?")
                params.append(session_id)
            if status is not None:
                clauses.append("status = ?")
                params.append(status)
            where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
            sql = f"SELECT {_RUN_COLS} FROM runs {where} ORDER BY started_at_ms DESC LIMIT ?"
            return [_run(r) for r in tx.execute(sql, (*params, limit))]

        return await self._db.read(q)

    async def finish_run(self, run: Run, assistant: Message | None) -> None:
        """Record a run's end together with its final assistant message."""

        def q(tx: Tx) -> None:
            tx.execute(
                _RUN_UPSERT,
                _run_params(run),
            )
            if assistant is not None:
                tx.execute(
                    _MESSAGE_UPSERT,
                    (
                        assistant.id,
                        assistant.session_id,
                        assistant.run_id,
                        assistant.role,
                        dumps(list(assistant.parts)),
                        dumps(dict(assistant.info)),
                        assistant.created_at_ms,
                        run.finished_at_ms or run.last_activity_at_ms,
                    ),
                )
            tx.execute(
                "UPDATE sessions SET updated_at_ms = ? WHERE id = ?",
                (run.finished_at_ms or run.last_activity_at_ms, run.session_id),
            )

        await self._db.write(q)
