"""The store's self-checks for ``POST /global/storage/repair``: integrity and orphaned rows."""

from __future__ import annotations

from typing import Any

from ..store import Store, Tx

# Rows that belong to a session which no longer exists (a delete that raced, a crash,
# an old file): name, then the statement counting them and the one removing them.
_ORPHANS: dict[str, tuple[str, str]] = {
    "messages": (
        "SELECT COUNT(*) FROM messages m "
        "WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = m.session_id)",
        "DELETE FROM messages "
        "WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = messages.session_id)",
    ),
    "runs": (
        "SELECT COUNT(*) FROM runs r "
        "WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = r.session_id)",
        "DELETE FROM runs WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = runs.session_id)",
    ),
    "pending_permission_requests": (
        "SELECT COUNT(*) FROM permission_requests p WHERE p.status = 'pending' "
        "AND p.session_id IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = p.session_id)",
        "DELETE FROM permission_requests WHERE status = 'pending' AND session_id IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = permission_requests.session_id)",
    ),
    "pending_questions": (
        "SELECT COUNT(*) FROM questions q WHERE q.status = 'pending' "
        "AND q.session_id IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = q.session_id)",
        "DELETE FROM questions WHERE status = 'pending' AND session_id IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = questions.session_id)",
    ),
    # A fork whose parent was deleted keeps its messages; only the link is dangling.
    "dangling_parent_links": (
        "SELECT COUNT(*) FROM sessions c WHERE c.parent_id IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = c.parent_id)",
        "UPDATE sessions SET parent_id = NULL WHERE parent_id IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = sessions.parent_id)",
    ),
}


class StoreRepairRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def integrity(self) -> dict[str, Any]:
        def q(tx: Tx) -> dict[str, Any]:
            # A dialect piece written here rather than in svc/store (told to the lead):
            # SQLite checks its pages with a pragma; PostgreSQL has no such statement
            # (page checksums and amcheck are the operator's tools).
            if tx.dialect.name != "sqlite":
                return {"status": "skipped", "reason": f"no integrity check on {tx.dialect.name}"}
            problems = [str(row[0]) for row in tx.execute("PRAGMA integrity_check")]
            ok = problems == ["ok"]
            return {"status": "ok" if ok else "failed", "problems": [] if ok else problems[:50]}

        return await self._db.read(q)

    async def orphans(self) -> dict[str, int]:
        def q(tx: Tx) -> dict[str, int]:
            return {name: int(tx.execute(count).scalar(0)) for name, (count, _) in _ORPHANS.items()}

        return await self._db.read(q)

    async def remove_orphans(self) -> dict[str, int]:
        def q(tx: Tx) -> dict[str, int]:
            removed: dict[str, int] = {}
            for name, (_, remove) in _ORPHANS.items():
                tx.execute(remove)
                removed[name] = tx.changes()
            return removed

        return await self._db.write(q)

    async def counts(self) -> dict[str, int]:
        def q(tx: Tx) -> dict[str, int]:
            return {
                table: int(tx.execute(f"SELECT COUNT(*) FROM {table}").scalar(0))
                for table in ("sessions", "messages", "runs", "events")
            }

        return await self._db.read(q)
