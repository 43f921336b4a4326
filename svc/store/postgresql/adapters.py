"""Type adaptation that keeps PostgreSQL's values the shape SQLite's were.

Repositories were written against SQLite, where a flag is an INTEGER 0/1 and
``SUM`` of integers is an integer. PostgreSQL's schema (migrations/postgresql/)
keeps flags as BIGINT, so:

* a Python ``bool`` parameter is sent as the integer 0 or 1 (psycopg would send
  a boolean, which a BIGINT column refuses);
* a NUMERIC result (what ``SUM`` or ``AVG`` of BIGINT gives) is read as an
  ``int`` when it is whole and a ``float`` otherwise, not a ``Decimal``, which
  JSON and attrs records do not expect.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection
from psycopg.adapt import Buffer, Loader
from psycopg.types.numeric import Int8Dumper


class _BoolAsInt(Int8Dumper):
    def dump(self, obj: Any) -> Buffer | None:
        return super().dump(int(obj))


class _NumericAsNumber(Loader):
    def load(self, data: Buffer) -> int | float:
        text = bytes(data).decode("ascii")
        if text.lstrip("-").isdigit():
            return int(text)
        return float(text)


def configure(conn: Connection[Any]) -> None:
    """Install the adapters on a new connection (the pool's ``configure`` hook)."""
    conn.adapters.register_dumper(bool, _BoolAsInt)
    conn.adapters.register_loader("numeric", _NumericAsNumber)


__all__ = ["configure"]
