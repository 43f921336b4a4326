"""The PostgreSQL unit of work: :class:`svc.store.Tx` over one psycopg connection.

Statements arrive with the seam's placeholders and are translated to psycopg's
(:mod:`.placeholders`). The connection's cursors bind parameters on the client
(``psycopg.ClientCursor``): values become literals, so PostgreSQL infers their
types from the statement the way SQLite accepts any value anywhere (a server-side
``$1 IS NULL`` with an untyped parameter is an error, for one).

In a write transaction every statement that changes rows runs under a
savepoint: PostgreSQL aborts the whole transaction at the first error, while
SQLite fails only the statement. With the savepoint, a unit of work that
catches :class:`IntegrityError` (an idempotent insert that lost a race) carries
on exactly as on SQLite.

Round trips are what a unit of work costs here (SQLite has none), so they are
merged: client-side binding lets one query carry several statements, so a
changing statement travels with its ``SAVEPOINT`` and ``RELEASE`` (one round
trip, not three; only a failure costs a second, to roll back to the
savepoint), and the transaction's ``BEGIN`` travels with its first statement
(:attr:`PgTx.begin`). The cursor is then moved to the statement's own result.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

from ..dialect import POSTGRESQL, Dialect
from ..errors import IntegrityError
from ..protocol import Params, Row
from .placeholders import translate

_LEADING = re.compile(r"\s*(?:(?:--[^\n]*\n|/\*.*?\*/)\s*)*([A-Za-z]+)", re.DOTALL)
_READ_ONLY = frozenset({"select", "values", "show", "explain"})


@functools.lru_cache(maxsize=2048)
def _changes_rows(sql: str) -> bool:
    """Whether a statement may change rows (and so may break a constraint)."""
    match = _LEADING.match(sql)
    return match is None or match.group(1).lower() not in _READ_ONLY


class PgRows:
    """The rows of one statement (none for a statement that returns none)."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: psycopg.Cursor[Row]) -> None:
        self._cursor = cursor

    def __iter__(self) -> Iterator[Row]:
        return self

    def __next__(self) -> Row:
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def fetchone(self) -> Row | None:
        if self._cursor.description is None:
            return None
        return self._cursor.fetchone()

    def fetchall(self) -> list[Row]:
        if self._cursor.description is None:
            return []
        return self._cursor.fetchall()

    def scalar(self, default: Any = None) -> Any:
        row = self.fetchone()
        return default if row is None else row[0]

    def mappings(self) -> list[dict[str, Any]]:
        description = self._cursor.description
        if description is None:
            return []
        names = [d.name for d in description]
        return [dict(zip(names, row, strict=True)) for row in self._cursor.fetchall()]


class PgTx:
    __slots__ = ("_at_commit", "_begin", "_changes", "_conn", "_write")

    def __init__(
        self, conn: psycopg.Connection[Row], *, write: bool, begin: str | None = None
    ) -> None:
        self._conn = conn
        self._write = write
        self._changes = 0
        self._begin = begin
        self._at_commit: list[str] = []

    @property
    def begin(self) -> str | None:
        """The ``BEGIN`` not sent yet: it goes with the first statement (None once sent)."""
        return self._begin

    @property
    def dialect(self) -> Dialect:
        return POSTGRESQL

    @property
    def commit_query(self) -> str:
        """What ends a write: ``COMMIT``, after the statements :meth:`at_commit` queued."""
        return "; ".join([*self._at_commit, "COMMIT"])

    def at_commit(self, statement: str) -> None:
        """Queue ``statement`` (no parameters: literals quoted by the caller) to travel
        with the ``COMMIT`` in one round trip. PostgreSQL-only, for pieces such as a
        ``NOTIFY`` whose delivery happens at commit anyway."""
        self._at_commit.append(statement)

    def send(self, query: str) -> psycopg.Cursor[Row]:
        """Run ``query`` (one or more ``;``-separated statements, no parameters) as one
        round trip, with the pending ``BEGIN``; the cursor is on the last statement's
        result. PostgreSQL-only, for pieces behind their own interface that count
        round trips (the shared event log's append); a failure aborts the transaction."""
        cursor = self._conn.cursor()
        if self._begin is not None:
            query = self._begin + "; " + query
        try:
            cursor.execute(query)
        finally:
            if self._conn.info.transaction_status != TransactionStatus.IDLE:
                self._begin = None
        while cursor.nextset():
            pass
        return cursor

    @property
    def connection(self) -> psycopg.Connection[Row]:
        """The driver's connection, for PostgreSQL-only pieces behind their own
        interface (the memory search index). Never for ordinary SQL."""
        self._send_begin()  # whatever the caller sends belongs to the transaction
        return self._conn

    def execute(self, sql: str, params: Params = ()) -> PgRows:
        cursor = self._conn.cursor()
        guarded = self._write and _changes_rows(sql)
        statement = translate(sql)
        before = []  # statements sent ahead of this one in the same query
        if self._begin is not None:
            before.append(self._begin)
        if guarded:
            before.append("SAVEPOINT svc_statement")
        if before:
            # A newline first, so a trailing comment cannot swallow what follows.
            query = "; ".join(before) + "; " + statement.rstrip().rstrip(";")
            if guarded:
                query += "\n; RELEASE SAVEPOINT svc_statement"
        else:
            query = statement
        try:
            cursor.execute(query, params)
        except psycopg.Error as exc:
            status = self._conn.info.transaction_status
            if status != TransactionStatus.IDLE:
                self._begin = None  # sent: BEGIN ran even though a later statement failed
            if guarded and status == TransactionStatus.INERROR:
                # The savepoint confines a failure to this statement (module docstring).
                # (Not INERROR: the query never reached the server, e.g. a parameter
                # it could not adapt, so there is no savepoint to return to.)
                self._conn.execute(
                    "ROLLBACK TO SAVEPOINT svc_statement; RELEASE SAVEPOINT svc_statement"
                )
            if isinstance(exc, psycopg.IntegrityError):
                raise IntegrityError(f"constraint failed: {_describe(exc)}") from exc
            raise
        self._begin = None
        for _ in before:
            cursor.nextset()  # to the statement's own result
        self._changes = max(cursor.rowcount, 0)
        return PgRows(cursor)

    def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        cursor = self._conn.cursor()
        if not (self._write and _changes_rows(sql)):
            self._send_begin()
            self._run(lambda: cursor.executemany(translate(sql), rows))
        else:
            self._send_begin("SAVEPOINT svc_statement")
            try:
                self._run(lambda: cursor.executemany(translate(sql), rows))
            except BaseException:
                if not self._conn.closed:
                    self._conn.execute(
                        "ROLLBACK TO SAVEPOINT svc_statement; RELEASE SAVEPOINT svc_statement"
                    )
                raise
            self._conn.execute("RELEASE SAVEPOINT svc_statement")
        self._changes = max(cursor.rowcount, 0)

    def script(self, sql: str) -> None:
        # No parameters: psycopg sends the text as it is (a literal % stays one).
        self._send_begin()
        self._conn.execute(sql)

    def changes(self) -> int:
        return self._changes

    def _send_begin(self, then: str | None = None) -> None:
        """Send the pending ``BEGIN`` (with ``then``, one round trip), if any."""
        parts = [p for p in (self._begin, then) if p is not None]
        self._begin = None
        if parts:
            self._conn.execute("; ".join(parts))

    @staticmethod
    def _run(call: Any) -> None:
        try:
            call()
        except psycopg.IntegrityError as exc:
            raise IntegrityError(f"constraint failed: {_describe(exc)}") from exc


def _describe(exc: psycopg.Error) -> str:
    diag = exc.diag
    return diag.constraint_name or diag.message_primary or type(exc).__name__


__all__ = ["PgRows", "PgTx"]
