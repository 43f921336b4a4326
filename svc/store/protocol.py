"""The store seam: what repositories and the engine may assume of a backend.

A repository method is one *unit of work*: a plain function ``fn(tx, *args)``
handed to :meth:`Store.read` or :meth:`Store.write`. It runs inside one
transaction (a read sees one snapshot; a write commits all of it or none), so it
may run as many statements as it likes for one call from the Trio loop. Where it
runs is the backend's choice (a worker thread; on SQLite the loop itself when it
is short), and a backend may run it again from the start after rolling back an
attempt: a unit of work changes nothing but the database.

SQL is written once for every backend:

* placeholders are ``?`` (positional, with a sequence) or ``:name`` (named,
  with a mapping); a backend whose driver wants another style translates;
* it keeps to the common subset of SQLite and PostgreSQL: ``INSERT ... ON
  CONFLICT`` (never ``INSERT OR REPLACE``), ``RETURNING`` instead of
  ``last_insert_rowid()``, no ``rowid``, timestamps as integer milliseconds;
* where the two really differ, the repository asks ``tx.dialect`` for the piece
  (:class:`svc.store.Dialect`).

No module outside ``svc/store`` and the repository modules imports a database
driver (``tests/svc/test_architecture.py`` holds that line).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .dialect import Dialect

T = TypeVar("T")

Row = tuple[Any, ...]
Params = Sequence[Any] | Mapping[str, Any]


class Rows(Protocol):
    """The result of one statement. Iterate it for tuples, or fetch."""

    def __iter__(self) -> Iterator[Row]: ...

    def __next__(self) -> Row: ...

    def fetchone(self) -> Row | None:
        """The next row, or None when there is none."""
        ...

    def fetchall(self) -> list[Row]: ...

    def scalar(self, default: Any = None) -> Any:
        """The first column of the first row, or ``default`` when there is no row."""
        ...

    def mappings(self) -> list[dict[str, Any]]:
        """Every remaining row as a ``{column: value}`` dict."""
        ...


class Tx(Protocol):
    """One transaction of a unit of work (valid only inside the function it is given to)."""

    @property
    def dialect(self) -> Dialect: ...

    def execute(self, sql: str, params: Params = ()) -> Rows:
        """Run one statement. A constraint violation raises :class:`IntegrityError`."""
        ...

    def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement once per parameter set (a bulk insert or update)."""
        ...

    def script(self, sql: str) -> None:
        """Run several ``;``-separated statements without parameters (DDL)."""
        ...

    def changes(self) -> int:
        """How many rows the last INSERT, UPDATE or DELETE changed."""
        ...


class Store(Protocol):
    """A database the engine persists to (see the module docstring)."""

    @property
    def kind(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        ...

    @property
    def dialect(self) -> Dialect: ...

    @property
    def closed(self) -> bool: ...

    def memory_bytes(self) -> int:
        """Memory the database library holds in this process (an embedded engine's page
        caches and statements); 0 for a server the engine only talks to."""
        ...

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(tx, *args)`` in one write transaction; it finishes even if cancelled."""
        ...

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(tx, *args)`` on one consistent snapshot."""
        ...


__all__ = ["Params", "Row", "Rows", "Store", "Tx"]
