"""Embed svc-engine in your own Python program.

Run it with ``python examples/embed.py``. It opens an engine on a throwaway
state directory, first without HTTP (driving it from Python), then with the
HTTP API on a free port, and closes it cleanly.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import httpx
import trio

import svc
from svc.events import EventFilter


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = svc.Settings.load({"state_dir": Path(tmp) / "state", "port": 0})

        # 1. In-process only: no sockets at all.
        async with svc.open_engine(settings) as engine:
            engine.events.publish("example.hello", {"sessionID": "demo"})
            await engine.events.flush()
            replayed = await engine.events.replay(EventFilter(session_id="demo"))
            print("in-process events:", [e.type for e in replayed])

        # 2. With the HTTP/SSE API on a free loopback port.
        async with svc.open_engine(settings, serve_http=True) as engine:
            async with httpx.AsyncClient(base_url=engine.url) as client:
                health = (await client.get("/global/health")).json()
            print("served at", engine.url, "health:", health)


if __name__ == "__main__":
    trio.run(main)
