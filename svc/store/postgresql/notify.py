"""``LISTEN`` on a PostgreSQL channel: notifications of other replicas, into Trio.

A listener holds one connection of its own (outside the pool: a pooled
connection is lent and given back, while ``LISTEN`` lasts as long as its
session). It waits on the connection's socket in the Trio loop itself
(``wait_readable``, then libpq's non-blocking ``consume_input`` and
``notifies``), so a notification costs no thread hand-off, and cancelling it is
immediate. The engine receives one per event append of every replica, its own
included, so this path is hot: with a worker thread per wait it cost a run
streaming on PostgreSQL about a tenth of its time. A connection that breaks is
reopened; ``on_reconnect`` tells the caller that notifications may have been
missed meanwhile, so it catches up from the database itself.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import trio

log = logging.getLogger("svc.store")

RECONNECT_S = 1.0
"""Pause before reopening a broken listening connection."""


async def _receive(conn: psycopg.Connection[Any]) -> list[str]:
    """The payloads that have arrived, waiting on the socket until there is one."""
    pgconn = conn.pgconn
    while True:
        payloads = []
        while (notify := pgconn.notifies()) is not None:
            payloads.append(notify.extra.decode("utf-8", "replace"))
        if payloads:
            return payloads
        await trio.lowlevel.wait_readable(pgconn.socket)
        # Non-blocking: reads what the socket holds. A closed or broken connection
        # raises psycopg.OperationalError, which the caller turns into a reconnect.
        pgconn.consume_input()


async def listen(
    conninfo: str,
    channel: str,
    on_notify: Callable[[list[str]], Awaitable[None]],
    *,
    on_reconnect: Callable[[], Awaitable[None]],
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Call ``on_notify(payloads)`` for what arrives on ``channel``, until cancelled.

    Started with ``nursery.start``: it reports started once it listens, so a
    notification sent after that is not missed.
    """
    started = False
    while True:
        try:
            conn = await trio.to_thread.run_sync(_connect, conninfo, channel)
        except psycopg.Error:
            if not started:
                raise
            log.warning("cannot listen on %s; retrying", channel, exc_info=True)
            await trio.sleep(RECONNECT_S)
            continue
        try:
            if started:
                await on_reconnect()  # notifications may have been missed meanwhile
            else:
                started = True
                task_status.started()
            while True:
                await on_notify(await _receive(conn))
        except psycopg.Error:
            log.warning("listening connection lost; reconnecting", exc_info=True)
            await trio.sleep(RECONNECT_S)
        finally:
            # Nothing else uses this connection, and closing sends one message
            # without waiting for an answer: quick enough for the loop, and a
            # cancelled listener still releases its connection.
            conn.close()


def _connect(conninfo: str, channel: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(conninfo, autocommit=True)
    conn.execute(f'LISTEN "{channel}"')
    return conn


__all__ = ["listen"]
