"""Wires the chat client together: HTTP client, console, Ctrl-C, loop; returns the exit code."""

from __future__ import annotations

import signal

import asyncclick as click
import httpx
import trio

from .client import ChatError, EngineClient
from .console import Console, Interrupts, history_path
from .loop import ChatLoop


async def run_chat(*, host: str, port: int, session_id: str | None, token: str | None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    interrupts = Interrupts()
    async with (
        httpx.AsyncClient(base_url=f"http://{host}:{port}", headers=headers, timeout=30.0) as http,
        trio.open_nursery() as nursery,
    ):
        console = Console(nursery, history=history_path())
        console.open()
        # Ctrl-C is an event the loop reacts to (cancel a run, then leave), never a
        # KeyboardInterrupt tearing through whatever happens to run.
        with trio.open_signal_receiver(signal.SIGINT) as signals:
            nursery.start_soon(interrupts.pump, signals)
            try:
                await ChatLoop(EngineClient(http), console, interrupts, session_id=session_id).run()
                code = 0
            except ChatError as exc:
                click.echo(f"error: {exc.message}", err=True)
                code = 2 if exc.code == "SESSION_NOT_FOUND" else 1
            finally:
                console.close()
                # The pump and a read nobody will finish (the thread is abandoned).
                nursery.cancel_scope.cancel()
    return code
