"""Leadership by a session-level advisory lock: one replica at a time runs a task.

The lock lives as long as the connection that took it, so it is held on a
connection of its own (outside the pool). A replica that dies loses the
connection and with it the lock (a killed process's socket is closed by the
kernel, and PostgreSQL ends its session at once), and the next replica that
tries takes it. While leading, the connection is checked every ``poll_s``: a
lost connection might mean the lock went to another replica, so the task is
cancelled and :class:`LeadershipLost` raised (its supervisor restarts it, and
it waits for the lock again).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import trio

log = logging.getLogger("svc.store")


class LeadershipLost(Exception):
    """The connection holding the advisory lock broke while the task led."""


def _connect(conninfo: str) -> psycopg.Connection[Any]:
    return psycopg.connect(conninfo, autocommit=True)


def _try_lock(conn: psycopg.Connection[Any], key: int) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    return bool(row and row[0])


def _alive(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SELECT 1")


def _close(conn: psycopg.Connection[Any]) -> None:
    conn.close()  # ends the session, and with it the lock


async def lead(
    conninfo: str,
    key: int,
    body: Callable[[], Awaitable[object]],
    *,
    poll_s: float,
    on_lead: Callable[[bool], None] = lambda leading: None,
) -> None:
    """Wait for the advisory lock ``key``, then run ``body()`` while holding it."""
    conn = await trio.to_thread.run_sync(_connect, conninfo)
    try:
        # Polling the database is the point: the lock's holder may be another process.
        while True:
            if await trio.to_thread.run_sync(_try_lock, conn, key):
                break
            await trio.sleep(poll_s)
        on_lead(True)
        try:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    while True:
                        await trio.sleep(poll_s)
                        try:
                            await trio.to_thread.run_sync(_alive, conn)
                        except psycopg.Error as exc:
                            raise LeadershipLost("the advisory lock's connection broke") from exc

                nursery.start_soon(watch)
                await body()
                nursery.cancel_scope.cancel()
        finally:
            on_lead(False)
    finally:
        # Shielded: closing is what releases the lock for the other replicas at
        # once, also when the task is cancelled (a stopping engine).
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_close, conn)


__all__ = ["LeadershipLost", "lead"]
