"""Channel storage: conversation to session bindings and listener state (the only SQL here)."""

from __future__ import annotations

from ..store import Store, Tx


def _session_of(tx: Tx, channel: str, conversation: str) -> str | None:
    value = tx.execute(
        "SELECT session_id FROM channel_conversations WHERE channel = ? AND conversation_id = ?",
        (channel, conversation),
    ).scalar()
    return str(value) if value is not None else None


def _bind(tx: Tx, channel: str, conversation: str, session_id: str, now_ms: int) -> None:
    tx.execute(
        "INSERT INTO channel_conversations"
        "(channel, conversation_id, session_id, created_at_ms, updated_at_ms) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel, conversation_id) DO UPDATE SET "
        "session_id = excluded.session_id, updated_at_ms = excluded.updated_at_ms",
        (channel, conversation, session_id, now_ms, now_ms),
    )


def _count(tx: Tx, channel: str) -> int:
    value = tx.execute(
        "SELECT COUNT(*) FROM channel_conversations WHERE channel = ?", (channel,)
    ).scalar(0)
    return int(value)


def _get_state(tx: Tx, channel: str, key: str) -> str | None:
    value = tx.execute(
        "SELECT value FROM channel_state WHERE channel = ? AND key = ?", (channel, key)
    ).scalar()
    return str(value) if value is not None else None


def _put_state(tx: Tx, channel: str, key: str, value: str, now_ms: int) -> None:
    tx.execute(
        "INSERT INTO channel_state(channel, key, value, updated_at_ms) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (channel, key) DO UPDATE SET value = excluded.value, "
        "updated_at_ms = excluded.updated_at_ms",
        (channel, key, value, now_ms),
    )


def _forget_channel(tx: Tx, channel: str) -> None:
    tx.execute("DELETE FROM channel_conversations WHERE channel = ?", (channel,))
    tx.execute("DELETE FROM channel_state WHERE channel = ?", (channel,))


class ChannelRepository:
    """Units of work over ``channel_conversations`` and ``channel_state``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def session_of(self, channel: str, conversation: str) -> str | None:
        return await self._store.read(_session_of, channel, conversation)

    async def bind(self, channel: str, conversation: str, session_id: str, *, now_ms: int) -> None:
        """Point the conversation at ``session_id`` (a fresh one after ``/new``)."""
        await self._store.write(_bind, channel, conversation, session_id, now_ms)

    async def conversation_count(self, channel: str) -> int:
        return await self._store.read(_count, channel)

    async def get_state(self, channel: str, key: str) -> str | None:
        return await self._store.read(_get_state, channel, key)

    async def put_state(self, channel: str, key: str, value: str, *, now_ms: int) -> None:
        await self._store.write(_put_state, channel, key, value, now_ms)

    async def forget_channel(self, channel: str) -> None:
        """A deleted channel's bindings and state (its sessions and transcripts stay)."""
        await self._store.write(_forget_channel, channel)


__all__ = ["ChannelRepository"]
