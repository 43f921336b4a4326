"""Delivery receipts (posts): one per destination per publish (reference §1.17)."""

from __future__ import annotations

from collections.abc import Sequence

from ..audit.ledger import AuditEntry
from ..audit.repository import append_entries
from ..store import Store, Tx, dumps, loads
from .records import Post


def save_post(tx: Tx, post: Post) -> None:
    """Insert or replace a receipt in a caller's transaction."""
    tx.execute(
        "INSERT INTO incident_posts(post_id, draft_id, destination_id, idempotency_key, status, "
        "created_at_ms, updated_at_ms, doc) VALUES (?,?,?,?,?,?,?,?) "
        "ON CONFLICT (post_id) DO UPDATE SET status = excluded.status, "
        "updated_at_ms = excluded.updated_at_ms, doc = excluded.doc",
        (
            post.post_id,
            post.draft_id,
            post.text("destination_id"),
            post.idempotency_key,
            post.status,
            post.created_at_ms,
            post.updated_at_ms,
            dumps(post.to_wire()),
        ),
    )


def _save(tx: Tx, post: Post, audits: Sequence[AuditEntry]) -> list[AuditEntry]:
    save_post(tx, post)
    return append_entries(tx, audits)


def _get(tx: Tx, post_id: str) -> Post | None:
    raw = tx.execute("SELECT doc FROM incident_posts WHERE post_id = ?", (post_id,)).scalar()
    return Post(loads(raw)) if raw is not None else None


def _page(tx: Tx, limit: int, destination_id: str | None, draft_id: str | None) -> list[Post]:
    where: list[str] = []
    params: list[object] = []
    if destination_id is not None:
        where.append("destination_id = ?")
        params.append(destination_id)
    if draft_id is not None:
        where.append("draft_id = ?")
        params.append(draft_id)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    rows = tx.execute(
        f"SELECT doc FROM incident_posts {clause} ORDER BY updated_at_ms DESC, post_id DESC "
        "LIMIT ?",
        (*params, limit),
    )
    return [Post(loads(r[0])) for r in rows]


def by_keys(tx: Tx, keys: Sequence[str]) -> dict[str, list[Post]]:
    """Receipts by idempotency key, oldest first, in a caller's transaction."""
    return {key: _by_key(tx, key) for key in dict.fromkeys(keys)}


def _by_key(tx: Tx, key: str) -> list[Post]:
    rows = tx.execute(
        "SELECT doc FROM incident_posts WHERE idempotency_key = ? ORDER BY created_at_ms",
        (key,),
    )
    return [Post(loads(r[0])) for r in rows]


def _count(tx: Tx, statuses: Sequence[str]) -> int:
    marks = ",".join("?" for _ in statuses)
    return int(
        tx.execute(
            f"SELECT COUNT(*) FROM incident_posts WHERE status IN ({marks})", tuple(statuses)
        ).scalar(0)
    )


def _delete(tx: Tx, ids: Sequence[str] | None) -> int:
    if ids is None:
        tx.execute("DELETE FROM incident_posts")
        return tx.changes()
    deleted = 0
    for i in dict.fromkeys(ids):
        tx.execute("DELETE FROM incident_posts WHERE post_id = ?", (i,))
        deleted += tx.changes()
    return deleted


def _prune(tx: Tx, before_ms: int) -> int:
    tx.execute("DELETE FROM incident_posts WHERE updated_at_ms < ?", (before_ms,))
    return tx.changes()


class PostRepository:
    def __init__(self, store: Store) -> None:
        self._db = store

    async def save(self, post: Post, *, audits: Sequence[AuditEntry] = ()) -> list[AuditEntry]:
        """Insert or replace the receipt; its audit rows commit with it (returned stored)."""
        return await self._db.write(_save, post, list(audits))

    async def get(self, post_id: str) -> Post | None:
        return await self._db.read(_get, post_id)

    async def page(
        self, *, limit: int = 50, destination_id: str | None = None, draft_id: str | None = None
    ) -> list[Post]:
        return await self._db.read(_page, limit, destination_id, draft_id)

    async def with_key(self, idempotency_key: str) -> list[Post]:
        return await self._db.read(_by_key, idempotency_key)

    async def count(self, *statuses: str) -> int:
        return await self._db.read(_count, statuses)

    async def delete(self, ids: Sequence[str] | None) -> int:
        return await self._db.write(_delete, ids)

    async def prune(self, before_ms: int) -> int:
        return await self._db.write(_prune, before_ms)
