"""The SQLite unit of work: :class:`svc.store.Tx` over one apsw connection.

SQLite takes the seam's placeholder styles (``?`` and ``:name``) natively, so
statements pass through untouched; the wrappers only keep the driver's types
and exceptions from leaking into repositories.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import apsw

from ..dialect import SQLITE, Dialect
from ..errors import IntegrityError
from ..protocol import Params, Row


class SqliteRows:
    __slots__ = ("_cursor",)

    def __init__(self, cursor: apsw.Cursor) -> None:
        self._cursor = cursor

    def __iter__(self) -> Iterator[Row]:
        return iter(self._cursor)

    def __next__(self) -> Row:
        return next(self._cursor)

    def fetchone(self) -> Row | None:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Row]:
        return self._cursor.fetchall()

    def scalar(self, default: Any = None) -> Any:
        row = self._cursor.fetchone()
        return default if row is None else row[0]

    def mappings(self) -> list[dict[str, Any]]:
        try:
            names = [d[0] for d in self._cursor.get_description()]
        except apsw.ExecutionCompleteError:
            return []  # a statement that returned no rows has no description left
        return [dict(zip(names, row, strict=True)) for row in self._cursor]


class SqliteTx:
    __slots__ = ("_conn",)

    def __init__(self, conn: apsw.Connection) -> None:
        self._conn = conn

    @property
    def dialect(self) -> Dialect:
        return SQLITE

    @property
    def connection(self) -> apsw.Connection:
        """The driver's connection, for SQLite-only pieces behind their own interface
        (the FTS5 memory search index). Never for ordinary SQL."""
        return self._conn

    def execute(self, sql: str, params: Params = ()) -> SqliteRows:
        try:
            return SqliteRows(self._conn.execute(sql, params))
        except apsw.ConstraintError as exc:
            raise IntegrityError(f"constraint failed: {exc}") from exc

    def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        try:
            self._conn.executemany(sql, rows)
        except apsw.ConstraintError as exc:
            raise IntegrityError(f"constraint failed: {exc}") from exc

    def script(self, sql: str) -> None:
        self._conn.execute(sql)

    def changes(self) -> int:
        return self._conn.changes()


__all__ = ["SqliteRows", "SqliteTx"]
