"""The pieces of SQL where SQLite and PostgreSQL differ, asked for by repositories.

Everything else is written once, in the subset both accept. A repository builds
its statement text once (usually at module import or first use) from these
pieces, so asking costs nothing per call.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Dialect:
    name: str
    """``"sqlite"`` or ``"postgresql"``."""

    def json_text(self, column: str, key: str) -> str:
        """The text value of top-level ``key`` of a JSON column (NULL when absent)."""
        if self.name == "postgresql":
            return f"({column}::jsonb ->> '{key}')"
        return f"json_extract({column}, '$.{key}')"

    def greatest(self, *exprs: str) -> str:
        """The largest of several values (SQLite's scalar ``max``)."""
        fn = "GREATEST" if self.name == "postgresql" else "max"
        return f"{fn}({', '.join(exprs)})"

    def least(self, *exprs: str) -> str:
        fn = "LEAST" if self.name == "postgresql" else "min"
        return f"{fn}({', '.join(exprs)})"

    def ilike(self, expr: str, pattern: str) -> str:
        """A case-insensitive LIKE (SQLite's LIKE already folds ASCII case)."""
        op = "ILIKE" if self.name == "postgresql" else "LIKE"
        return f"{expr} {op} {pattern} ESCAPE '\\'"

    @property
    def blob(self) -> str:
        """The column type of raw bytes."""
        return "BYTEA" if self.name == "postgresql" else "BLOB"

    def serialize(self, key: int) -> str | None:
        """A statement making writers of ``key`` take turns until their transactions end,
        or None where writers already do (SQLite has one writer; PostgreSQL replicas
        write at once: a transaction-level advisory lock, per database)."""
        return f"SELECT pg_advisory_xact_lock({int(key)})" if self.name == "postgresql" else None


SQLITE = Dialect("sqlite")
POSTGRESQL = Dialect("postgresql")

__all__ = ["POSTGRESQL", "SQLITE", "Dialect"]
