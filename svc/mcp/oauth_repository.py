"""OAuth credentials of MCP connectors: the client registration and the tokens, per connector."""

from __future__ import annotations

from typing import Any

from ..store import Store, Tx, dumps, loads


class McpOAuthRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    async def get(self, server: str) -> dict[str, Any] | None:
        """``{client_info, tokens, expires_at_ms}`` of ``server``, or None."""

        def q(tx: Tx) -> dict[str, Any] | None:
            row = tx.execute(
                "SELECT client_info, tokens, expires_at_ms FROM mcp_oauth WHERE server = ?",
                (server,),
            ).fetchone()
            if row is None:
                return None
            return {"client_info": loads(row[0]), "tokens": loads(row[1]), "expires_at_ms": row[2]}

        return await self._db.read(q)

    async def save_client(self, server: str, client_info: dict[str, Any], *, now_ms: int) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO mcp_oauth(server, client_info, updated_at_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (server) DO UPDATE SET client_info = excluded.client_info, "
                "updated_at_ms = excluded.updated_at_ms",
                (server, dumps(client_info), now_ms),
            )

        await self._db.write(q)

    async def save_tokens(
        self, server: str, tokens: dict[str, Any], *, expires_at_ms: int | None, now_ms: int
    ) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO mcp_oauth(server, tokens, expires_at_ms, updated_at_ms) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (server) DO UPDATE SET tokens = excluded.tokens, "
                "expires_at_ms = excluded.expires_at_ms, updated_at_ms = excluded.updated_at_ms",
                (server, dumps(tokens), expires_at_ms, now_ms),
            )

        await self._db.write(q)

    async def delete(self, server: str) -> bool:
        def q(tx: Tx) -> bool:
            tx.execute("DELETE FROM mcp_oauth WHERE server = ?", (server,))
            return tx.changes() > 0

        return await self._db.write(q)
