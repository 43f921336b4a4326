"""MCP connectors, their runtime state and capability requests in SQLite."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..store import Store, Tx, dumps, loads

if TYPE_CHECKING:
    from .records import ConnectorConfig, ConnectorState

# The records are imported by the functions that build them: a fresh store has no
# connector row, so start-up never loads them (docs/architecture.md, "Start-up budget").

_CONFIG_COLS = "name, transport, enabled, headers, allowed_tools, created_at_ms, updated_at_ms"
_STATE_COLS = (
    "connected, last_error, last_auth_challenge, mcp_session_id, tool_cache, tools_fetched_at_ms, "
    "pending_auth_by_tool, server_info, protocol_version, updated_at_ms"
)


def _config(row: tuple[Any, ...]) -> ConnectorConfig:
    from .records import ConnectorConfig

    return ConnectorConfig(
        name=row[0],
        transport=row[1],
        enabled=bool(row[2]),
        headers=loads(row[3], {}),
        allowed_tools=loads(row[4]),
        created_at_ms=row[5],
        updated_at_ms=row[6],
    )


def _state(row: tuple[Any, ...] | None) -> ConnectorState:
    from .auth import AuthChallenge, PendingAuth
    from .records import CachedTool, ConnectorState

    if row is None or row[0] is None:
        return ConnectorState()
    challenge = loads(row[2])
    return ConnectorState(
        connected=bool(row[0]),
        last_error=row[1],
        last_auth_challenge=AuthChallenge.from_wire(challenge) if challenge else None,
        mcp_session_id=row[3],
        tool_cache=tuple(CachedTool.from_wire(t) for t in loads(row[4], [])),
        tools_fetched_at_ms=row[5],
        pending_auth_by_tool={k: PendingAuth.from_wire(v) for k, v in loads(row[6], {}).items()},
        server_info=loads(row[7]),
        protocol_version=row[8],
        updated_at_ms=row[9] or 0,
    )


def _config_params(config: ConnectorConfig) -> tuple[Any, ...]:
    allowed = list(config.allowed_tools) if config.allowed_tools is not None else None
    return (
        config.name,
        config.transport,
        int(config.enabled),
        dumps(dict(config.headers)),
        dumps(allowed),
        config.created_at_ms,
        config.updated_at_ms,
    )


class McpRepository:
    def __init__(self, db: Store) -> None:
        self._db = db

    # ------------------------------------------------------------ connectors
    async def load_all(self) -> list[tuple[ConnectorConfig, ConnectorState]]:
        def q(tx: Tx) -> list[tuple[ConnectorConfig, ConnectorState]]:
            rows = tx.execute(
                f"SELECT c.{_CONFIG_COLS.replace(', ', ', c.')}, "
                f"s.{_STATE_COLS.replace(', ', ', s.')} FROM mcp_connectors c "
                "LEFT JOIN mcp_connector_state s ON s.name = c.name ORDER BY c.name"
            ).fetchall()
            return [(_config(row[:7]), _state(row[7:])) for row in rows]

        return await self._db.read(q)

    async def get(self, name: str) -> tuple[ConnectorConfig, ConnectorState] | None:
        def q(tx: Tx) -> tuple[ConnectorConfig, ConnectorState] | None:
            row = tx.execute(
                f"SELECT c.{_CONFIG_COLS.replace(', ', ', c.')}, "
                f"s.{_STATE_COLS.replace(', ', ', s.')} FROM mcp_connectors c "
                "LEFT JOIN mcp_connector_state s ON s.name = c.name WHERE c.name = ?",
                (name,),
            ).fetchone()
            return None if row is None else (_config(row[:7]), _state(row[7:]))

        return await self._db.read(q)

    async def save_config(self, config: ConnectorConfig) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                f"INSERT INTO mcp_connectors({_CONFIG_COLS}) VALUES (?,?,?,?,?,?,?) "
                "ON CONFLICT(name) DO UPDATE SET transport=excluded.transport, "
                "enabled=excluded.enabled, headers=excluded.headers, "
                "allowed_tools=excluded.allowed_tools, updated_at_ms=excluded.updated_at_ms",
                _config_params(config),
            )

        await self._db.write(q)

    async def save_state(self, name: str, state: ConnectorState, *, version: int) -> None:
        """Store the actor's state; a write older than the stored ``version`` is ignored."""
        challenge = state.last_auth_challenge
        params = (
            name,
            version,
            int(state.connected),
            state.last_error,
            dumps(challenge.to_wire() if challenge else None),
            state.mcp_session_id,
            dumps([t.to_wire() for t in state.tool_cache]),
            state.tools_fetched_at_ms,
            dumps({k: v.to_wire() for k, v in state.pending_auth_by_tool.items()}),
            dumps(dict(state.server_info) if state.server_info else None),
            state.protocol_version,
            state.updated_at_ms,
        )

        def q(tx: Tx) -> None:
            if (
                tx.execute("SELECT 1 FROM mcp_connectors WHERE name = ?", (name,)).fetchone()
                is None
            ):
                return  # deleted meanwhile
            tx.execute(
                f"INSERT INTO mcp_connector_state(name, version, {_STATE_COLS})"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(name) DO UPDATE SET version=excluded.version, "
                "connected=excluded.connected, last_error=excluded.last_error, "
                "last_auth_challenge=excluded.last_auth_challenge, "
                "mcp_session_id=excluded.mcp_session_id, tool_cache=excluded.tool_cache, "
                "tools_fetched_at_ms=excluded.tools_fetched_at_ms, "
                "pending_auth_by_tool=excluded.pending_auth_by_tool, "
                "server_info=excluded.server_info, protocol_version=excluded.protocol_version, "
                "updated_at_ms=excluded.updated_at_ms "
                "WHERE excluded.version > mcp_connector_state.version",
                params,
            )

        await self._db.write(q)

    async def reset_sessions(self) -> None:
        """At engine start: no MCP session survives the process, and a new actor counts from
        zero."""

        def q(tx: Tx) -> None:
            tx.execute(
                "UPDATE mcp_connector_state SET connected = 0, mcp_session_id = NULL, version = 0"
            )

        await self._db.write(q)

    async def delete(self, name: str) -> bool:
        def q(tx: Tx) -> bool:
            tx.execute("DELETE FROM mcp_connectors WHERE name = ?", (name,))
            return bool(tx.changes())

        return await self._db.write(q)

    # ------------------------------------------------------------ capability requests
    async def add_capability_request(self, record: Mapping[str, Any]) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "INSERT INTO mcp_capability_requests(approval_id, agent_id, capability_key, "
                "status, record, expires_at_ms, created_at_ms, updated_at_ms)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (
                    record["approval_id"],
                    record["requested_by"]["actor_id"],
                    record["context"]["capability_key"],
                    record["status"],
                    dumps(dict(record)),
                    record.get("expires_at_ms"),
                    record["created_at_ms"],
                    record["updated_at_ms"],
                ),
            )

        await self._db.write(q)

    async def update_capability_request(self, record: Mapping[str, Any]) -> None:
        def q(tx: Tx) -> None:
            tx.execute(
                "UPDATE mcp_capability_requests SET status = ?, record = ?, updated_at_ms = ?"
                " WHERE approval_id = ?",
                (
                    record["status"],
                    dumps(dict(record)),
                    record["updated_at_ms"],
                    record["approval_id"],
                ),
            )

        await self._db.write(q)

    async def capability_request(self, approval_id: str) -> dict[str, Any] | None:
        def q(tx: Tx) -> dict[str, Any] | None:
            row = tx.execute(
                "SELECT record FROM mcp_capability_requests WHERE approval_id = ?", (approval_id,)
            ).fetchone()
            return None if row is None else loads(row[0])

        return await self._db.read(q)

    async def capability_requests(
        self, *, agent_id: str | None = None, status: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        def q(tx: Tx) -> list[dict[str, Any]]:
            clauses, params = [], []
            if agent_id is not None:
                clauses.append("agent_id = ?")
                params.append(agent_id)
            if status is not None:
                clauses.append("status = ?")
                params.append(status)
            where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
            rows = tx.execute(
                f"SELECT record FROM mcp_capability_requests {where}"
                " ORDER BY created_at_ms DESC, approval_id LIMIT ?",
                (*params, limit),
            ).fetchall()
            return [loads(r[0]) for r in rows]

        return await self._db.read(q)


__all__ = ["McpRepository"]
