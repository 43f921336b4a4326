"""Browser benchmark (a plain script, not collected by pytest).

    .venv/bin/python tests/benchmarks/bench_browser.py [--rounds N]

Real headless Chromium (``/usr/bin/chromium``, run as root: no sandbox) and a
loopback page. Measured in the same run, rounds interleaved, median and best:
  (a) a small direct script: launch Chromium, connect to its DevTools websocket
      (trio-websocket, raw JSON), attach to the page, ``Page.navigate`` and wait for
      the load event, evaluate the same snapshot script the sidecar uses, kill it;
  (b) the same three steps through the engine's tool API: ``browser_open``,
      ``browser_snapshot``, ``browser_close`` (dispatcher, policy, actor, stdio
      JSON-RPC to the sidecar, the sidecar's session and page).
Target: (b) at most 1.5 times (a). Then 10 engine sessions at once (open,
snapshot, close each), which must all succeed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pathlib
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import trio
from trio_websocket import open_websocket_url

import svc
from svc.browser.discovery import find_browser
from svc.browser.sidecar.launch import LaunchOptions, launch
from svc.browser.sidecar.scripts import SNAPSHOT, call
from svc.tools import ToolContext
from tests.fakes.browser_pages import open_pages

CONCURRENT = 10


async def direct(url: str, root: pathlib.Path) -> int:
    """open + snapshot + close over raw DevTools; returns the element count."""
    executable = str(find_browser(None))
    browser = await launch(LaunchOptions(executable, no_sandbox=True, temp_root=root))
    try:
        async with open_websocket_url(browser.ws_url, max_message_size=2**26) as ws:
            ids = itertools.count(1)
            events: list[dict[str, Any]] = []

            async def send(method: str, params: dict[str, Any], session: str | None = None) -> Any:
                ident = next(ids)
                message: dict[str, Any] = {"id": ident, "method": method, "params": params}
                if session:
                    message["sessionId"] = session
                await ws.send_message(json.dumps(message))
                while True:
                    reply = json.loads(await ws.get_message())
                    if reply.get("id") == ident:
                        return reply.get("result", {})
                    events.append(reply)

            targets = await send("Target.getTargets", {})
            page = next(t for t in targets["targetInfos"] if t["type"] == "page")
            attached = await send(
                "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}
            )
            session = attached["sessionId"]
            await send("Page.enable", {}, session)
            await send("Page.navigate", {"url": url}, session)
            while not any(e.get("method") == "Page.loadEventFired" for e in events):
                events.append(json.loads(await ws.get_message()))
            found = await send(
                "Runtime.evaluate",
                {"expression": call(SNAPSHOT, 50), "returnByValue": True},
                session,
            )
            return len(found["result"]["value"]["elements"])
    finally:
        browser.kill()


async def through_engine(engine: svc.Engine, url: str, session: str) -> int:
    ctx = ToolContext(workspace=engine.workspace, source="session", session_id=session)
    engine.permissions.grant_session(session, ["browser_open", "browser_snapshot", "browser_close"])

    async def run(name: str, args: dict[str, Any]) -> dict[str, Any]:
        outcome = await engine.dispatcher.dispatch(name, args, ctx)
        if not outcome.ok or outcome.metadata.get("ok") is False:
            raise RuntimeError(f"{name}: {outcome.error or outcome.output}")
        return json.loads(outcome.output or "{}")

    opened = await run("browser_open", {"url": url})
    sid = opened["session_id"]
    snapshot = await run("browser_snapshot", {"session_id": sid})
    await run("browser_close", {"session_id": sid})
    return len(snapshot["elements"])


async def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        async with open_pages() as pages:
            url = pages.url + "/"
            settings = svc.Settings.load(
                {
                    "state_dir": root / "state",
                    "workspace": root,
                    "global_config": root / "none.json",
                    "browser": {
                        "enabled": True,
                        "allow_no_sandbox": True,
                        "allowed_hosts": ["127.0.0.1"],
                        "user_data_root": str(root / "profiles"),
                        "max_sessions": CONCURRENT,
                    },
                },
                environ={},
            )
            async with svc.open_engine(settings) as engine:
                # Warm-up: the sidecar starts on first use; both paths load Chromium once.
                assert await direct(url, root / "direct") == await through_engine(
                    engine, url, "warm"
                )
                direct_times, engine_times = [], []
                for index in range(rounds):
                    started = time.perf_counter()
                    await direct(url, root / "direct")
                    direct_times.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    await through_engine(engine, url, f"bench-{index}")
                    engine_times.append(time.perf_counter() - started)

                errors: list[BaseException] = []
                started = time.perf_counter()

                async def one(index: int) -> None:
                    try:
                        await through_engine(engine, url, f"concurrent-{index}")
                    except Exception as exc:  # counted and reported, not raised
                        errors.append(exc)

                async with trio.open_nursery() as nursery:
                    for index in range(CONCURRENT):
                        nursery.start_soon(one, index)
                concurrent = time.perf_counter() - started

    d_med, e_med = statistics.median(direct_times), statistics.median(engine_times)
    d_best, e_best = min(direct_times), min(engine_times)
    print(f"rounds: {rounds}")
    print(f"(a) direct DevTools script: median {d_med * 1000:.0f} ms, best {d_best * 1000:.0f} ms")
    print(f"(b) engine tool API:        median {e_med * 1000:.0f} ms, best {e_best * 1000:.0f} ms")
    print(f"ratio (b)/(a): median {e_med / d_med:.2f}, best {e_best / d_best:.2f} (target <= 1.5)")
    print(
        f"{CONCURRENT} concurrent engine sessions: {concurrent:.1f} s, "
        f"{CONCURRENT - len(errors)} ok, {len(errors)} errors"
    )
    for error in errors:
        print(f"  error: {error}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    trio.run(main, parser.parse_args().rounds)
