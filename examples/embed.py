"""Embed svc-engine in your own Python program.

Run it with ``python examples/embed.py``. It opens an engine on a throwaway
state directory, first without HTTP (driving it from Python: a session, a run on
the built-in offline model, the run's events), then with the HTTP API on a free
port, and closes it cleanly. With a provider configured (for example
``OPENAI_API_KEY`` in the environment), the same code talks to that model.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import httpx
import trio

import svc
from svc.events import EventFilter
from svc.sessions import CreateSession, RunRequest


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = svc.Settings.load({"state_dir": Path(tmp) / "state", "port": 0})

        # 1. In-process only: no sockets at all.
        async with svc.open_engine(settings) as engine:
            engine.events.publish("example.hello", {"sessionID": "demo"})
            await engine.events.flush()
            replayed = await engine.events.replay(EventFilter(session_id="demo"))
            print("in-process events:", [e.type for e in replayed])

            session = await engine.sessions.create(CreateSession(title="embedded"))
            prompt = RunRequest(
                parts=({"type": "text", "text": "hello from Python"},), provider_id="local"
            )
            run, reply = await engine.sessions.run_to_end(session.id, prompt, timeout=60)
            print("run:", run.status, "reply:", reply.strip())
            await engine.events.flush()
            run_events = await engine.events.replay(EventFilter(run_id=run.id))
            print("run finished events:", sum(e.type == "session.run.finished" for e in run_events))

        # 2. With the HTTP/SSE API on a free loopback port.
        async with svc.open_engine(settings, serve_http=True) as engine:
            async with httpx.AsyncClient(base_url=engine.url) as client:
                health = (await client.get("/global/health")).json()
            print("served at", engine.url, "health:", health)


if __name__ == "__main__":
    trio.run(main)
