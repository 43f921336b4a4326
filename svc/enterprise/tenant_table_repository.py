"""The storage shape every enterprise aggregate shares: one tenant-scoped table each.

A row is the tenant (org, workspace, deployment or ``''``), the record's key,
its parent, its state and the record as JSON. Every read names the tenant, so a
record of another tenant is invisible rather than forbidden. The aggregate
repositories (:mod:`.governance_repository`, :mod:`.connector_repository`,
:mod:`.ingestion_repository`) subclass :class:`TenantTable` with their table
and record class; SQL is in the subset SQLite and PostgreSQL share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from ..convert import converter
from ..store import Store, Tx, dumps, loads

Key = tuple[str, str, str]
"""(org_id, workspace_id, deployment_id or '')."""


class Stored(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def parent(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def created_at_ms(self) -> int: ...
    @property
    def updated_at_ms(self) -> int: ...


R = TypeVar("R", bound=Stored)

_TENANT = "org_id = ? AND workspace_id = ? AND deployment_id = ?"


class TenantTable(Generic[R]):
    table: ClassVar[str]
    record: type[R]

    def __init__(self, db: Store) -> None:
        self._db = db

    # ------------------------------------------------------------------ rows
    def _decode(self, body: str) -> R:
        return converter.structure(loads(body), self.record)

    def _row(self, tenant: Key, record: R) -> tuple[Any, ...]:
        return (
            *tenant,
            record.key,
            record.parent,
            record.state,
            dumps(converter.unstructure(record)),
            record.created_at_ms,
            record.updated_at_ms,
        )

    # ------------------------------------------------------------------ in a held transaction
    def put_in(self, tx: Tx, tenant: Key, records: Sequence[R]) -> None:
        tx.executemany(
            f"INSERT INTO {self.table}(org_id, workspace_id, deployment_id, id, parent_id, "
            "state, body, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (org_id, workspace_id, deployment_id, id) DO UPDATE SET "
            "parent_id = excluded.parent_id, state = excluded.state, body = excluded.body, "
            "updated_at_ms = excluded.updated_at_ms",
            [self._row(tenant, r) for r in records],
        )

    def get_in(self, tx: Tx, tenant: Key, key: str) -> R | None:
        row = tx.execute(
            f"SELECT body FROM {self.table} WHERE {_TENANT} AND id = ?", (*tenant, key)
        ).fetchone()
        return self._decode(row[0]) if row else None

    def all_in(self, tx: Tx, tenant: Key, *, parent: str | None = None) -> list[R]:
        sql = f"SELECT body FROM {self.table} WHERE {_TENANT}"
        params: list[Any] = list(tenant)
        if parent is not None:
            sql += " AND parent_id = ?"
            params.append(parent)
        return [self._decode(body) for (body,) in tx.execute(sql + " ORDER BY id", params)]

    # ------------------------------------------------------------------ units of work
    async def put(self, tenant: Key, record: R) -> R:
        await self._db.write(self.put_in, tenant, [record])
        return record

    async def put_many(self, tenant: Key, records: Sequence[R]) -> None:
        if records:
            await self._db.write(self.put_in, tenant, list(records))

    async def get(self, tenant: Key, key: str) -> R | None:
        return await self._db.read(self.get_in, tenant, key)

    async def all(self, tenant: Key, *, parent: str | None = None) -> list[R]:
        return await self._db.read(lambda tx: self.all_in(tx, tenant, parent=parent))

    async def delete(self, tenant: Key, key: str) -> bool:
        def q(tx: Tx) -> bool:
            tx.execute(f"DELETE FROM {self.table} WHERE {_TENANT} AND id = ?", (*tenant, key))
            return tx.changes() > 0

        return await self._db.write(q)

    async def count_by_state(self, tenant: Key) -> dict[str, int]:
        def q(tx: Tx) -> dict[str, int]:
            rows = tx.execute(
                f"SELECT state, count(*) FROM {self.table} WHERE {_TENANT} GROUP BY state "
                "ORDER BY state",
                tenant,
            )
            return {state: int(n) for state, n in rows}

        return await self._db.read(q)

    async def count_in_state(self, tenant: Key, state: str, *, parent: str | None = None) -> int:
        def q(tx: Tx) -> int:
            sql = f"SELECT count(*) FROM {self.table} WHERE {_TENANT} AND state = ?"
            params: list[Any] = [*tenant, state]
            if parent is not None:
                sql += " AND parent_id = ?"
                params.append(parent)
            return int(tx.execute(sql, params).scalar(0))

        return await self._db.read(q)


__all__ = ["Key", "Stored", "TenantTable"]
