"""``LISTEN`` on a PostgreSQL channel: notifications of other replicas, into Trio.

A listener holds one connection of its own (outside the pool: a pooled
connection is lent and given back, while ``LISTEN`` lasts as long as its
session). A worker thread waits for notifications a short while at a time, so
it notices that it should stop, and hands what arrived to the Trio side. A
connection that breaks is reopened; ``on_reconnect`` tells the caller that
notifications may have been missed meanwhile, so it catches up from the
database itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import trio

log = logging.getLogger("svc.store")

WAIT_S = 0.25
"""How long the thread waits for a notification before it checks whether to stop."""

RECONNECT_S = 1.0
"""Pause before reopening a broken listening connection."""


def _wait(conn: psycopg.Connection[Any], stop: threading.Event) -> list[str]:
    """Payloads that arrive within :data:`WAIT_S` (the thread's side)."""
    if stop.is_set():
        return []
    # stop_after=1: back as soon as one arrives (with any that came in the same packet).
    return [n.payload for n in conn.notifies(timeout=WAIT_S, stop_after=1)]


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
    notification sent after that is not missed. Cancelling it stops the thread
    within :data:`WAIT_S` and closes the connection.
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
        stop = threading.Event()
        try:
            if started:
                await on_reconnect()  # notifications may have been missed meanwhile
            else:
                started = True
                task_status.started()
            while True:
                # abandon_on_cancel: the thread returns within WAIT_S by itself
                # and sees `stop`; cancelling must not wait for it.
                payloads = await trio.to_thread.run_sync(_wait, conn, stop, abandon_on_cancel=True)
                if payloads:
                    await on_notify(payloads)
        except psycopg.Error:
            log.warning("listening connection lost; reconnecting", exc_info=True)
            await trio.sleep(RECONNECT_S)
        finally:
            _close_later(conn, stop)


def _connect(conninfo: str, channel: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(conninfo, autocommit=True)
    conn.execute(f'LISTEN "{channel}"')
    return conn


def _close_later(conn: psycopg.Connection[Any], stop: threading.Event) -> None:
    """Close ``conn`` once an abandoned wait on it has returned (on a thread of its own)."""

    def close() -> None:
        stop.set()
        # The connection's own lock: close() waits for a notifies() in progress.
        with conn.lock:
            conn.close()

    threading.Thread(target=close, name="svc-listen-close", daemon=True).start()


__all__ = ["listen"]
