"""Web application benchmark, in real headless Chromium (Debian's ``chromium``).

    .venv/bin/python tests/benchmarks/bench_webui.py [--rounds 5]

Measured on loopback, one engine with ``--web-ui`` and a scripted model:

  (a) first paint of the sessions page: the browser's own ``first-contentful-paint``
      for a fresh load of ``/admin/#/sessions`` (median of the rounds; target < 300 ms);
  (b) a run streaming 5,000 text deltas into the chat view: the longest task in
      the browser's own performance timeline (``longtask`` entries) while it
      streams (target: none over 100 ms), and that the whole text arrived;
  (c) the panel's proxy: the same finished run's events replayed over SSE
      (``/run/{id}/events``, from seq 0 to ``session.run.finished``) directly from
      the engine and through ``svc-engine panel``'s proxy (in this process),
      alternately, best of the rounds (target: the proxy adds at most 10 %).
      The log stores the 5,000 deltas coalesced, so this replay is ~15 events (~40 KB) and a few
      milliseconds: the extra loopback hop's fixed cost dominates it. Hence also
  (d) the same comparison on a longer stream: the whole event log (the run above
      and ``LOG_RUNS`` more short runs, a few thousand events) replayed over
      ``/event`` from ``Last-Event-ID: 0`` to its last event, best of the rounds;
  (e) what a person watching a run sees: a live run of ``LIVE_DELTAS`` deltas (the
      model streaming as fast as it can) followed over ``/event?sessionID=`` from the
      prompt to ``session.run.finished``, the stream read directly from the engine or
      through the panel, alternately, medians of the rounds (the prompt itself always
      goes straight to the engine, so the stream's path is the only difference).

(g) repeats (e) with the panel in its own process: the stream a panel user has, as
they have it. The run is the 5,000 deltas of (b) (the engine coalesces them into
about 15 events), so (e) and (g) are the issue's measure: the same run's SSE stream,
directly and through the panel.

(c) and (d) are pure relays of stored events, the proxy's worst case: its per-chunk
cost is compared with the engine's cheapest work. (e) is the stream a panel user has.
In (c) to (e) the panel shares the engine's process and thread, so its work is added
to the engine's one for one; (f) repeats (d) with the panel as users run it,
``svc-engine panel`` in its own process, wall time, medians of the rounds.

(c) and (d) give wall time and this process's CPU time (engine, panel and client
all run in it): on a machine shared with other work the wall time is mostly the
scheduler's noise, while the CPU time is what the stream costs.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

import svc
from svc.webui.panel.config import PanelConfig
from svc.webui.panel.server import serve_panel
from tests.fakes import Turn, open_fake_openai
from tests.svc.webui.browser import open_page

DELTAS = 5_000
LIVE_DELTAS = DELTAS
LOG_RUNS = 150
REPLAY_ROUNDS = 4
"""(c) and (d) take the best of this many times ``--rounds`` (a busy machine's noise)."""
LONGTASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longtasks.push(entry.duration);
}).observe({ type: "longtask", buffered: true });
"""


def browser_part(url: str, session_id: str, rounds: int) -> dict[str, Any]:
    paints = []
    with open_page() as page:
        for _ in range(rounds):
            page.goto("about:blank")
            page.goto(f"{url}/admin/#/sessions")
            page.get_by_role("heading", name="Sessions").wait_for()
            paints.append(
                page.evaluate(
                    "() => performance.getEntriesByName('first-contentful-paint')[0].startTime"
                )
            )
        page.add_init_script(LONGTASKS)
        page.goto("about:blank")
        page.goto(f"{url}/admin/#/session/{session_id}")
        page.locator(".stream-state.live").wait_for()
        page.get_by_role("textbox", name="Prompt").fill("stream please")
        page.get_by_role("button", name="Send").click()
        page.locator('.run-status[data-status="completed"]').wait_for(timeout=120_000)
        text = page.locator(".msg.assistant .part-text").last.inner_text()
        longtasks = page.evaluate("() => window.__longtasks")
    return {"paints": paints, "longtasks": longtasks, "chars": len(text)}


async def replay_seconds(client: httpx.AsyncClient, url: str, run_id: str) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    async with client.stream(
        "GET", f"{url}/run/{run_id}/events?since_seq=0", headers={"Accept": "text/event-stream"}
    ) as response:
        async for line in response.aiter_lines():
            if line.startswith("data:") and '"session.run.finished"' in line:
                break
    return time.perf_counter() - started, time.process_time() - cpu


async def replay_log_seconds(
    client: httpx.AsyncClient, url: str, last_seq: int
) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    async with client.stream(
        "GET", f"{url}/event", headers={"Accept": "text/event-stream", "Last-Event-ID": "0"}
    ) as response:
        async for line in response.aiter_lines():
            if line.startswith("id:") and int(line[3:].strip()) >= last_seq:
                break
    return time.perf_counter() - started, time.process_time() - cpu


LIVE_EVENTS: list[int] = []


async def live_seconds(
    client: httpx.AsyncClient, stream_url: str, api_url: str, session_id: str
) -> float:
    async with client.stream(
        "GET", f"{stream_url}/event?sessionID={session_id}", headers={"Accept": "text/event-stream"}
    ) as response:
        lines = response.aiter_lines()
        started = time.perf_counter()
        answer = await client.post(
            f"{api_url}/session/{session_id}/prompt_async",
            json={"parts": [{"type": "text", "text": "live"}]},
        )
        assert answer.status_code in (202, 204), answer.text
        events = 0
        async for line in lines:
            events += line.startswith("data:")
            if line.startswith("data:") and '"session.run.finished"' in line:
                break
    LIVE_EVENTS.append(events)
    return time.perf_counter() - started


async def panel_process(engine_url: str) -> tuple[trio.Process, str]:
    """``svc-engine panel`` as users start it; returns the process and its URL."""
    import os
    import re

    script = pathlib.Path(sys.executable).with_name("svc-engine")
    process = await trio.lowlevel.open_process(
        [str(script), "panel", "--port", "0", "--engine-url", engine_url],
        stderr=subprocess.PIPE,
        env={**os.environ, "SVC_CONTROL_PANEL_AUTO_START_ENGINE": "0"},
    )
    assert process.stderr is not None
    seen = b""
    while (found := re.search(rb"panel listening on (http://[^\s,]+)", seen)) is None:
        chunk = await process.stderr.receive_some()
        if not chunk:
            raise RuntimeError(f"panel exited early: {seen.decode()}")
        seen += chunk
    return process, found.group(1).decode()


async def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "ws").mkdir()
        async with open_fake_openai() as fake:
            fake.enqueue(Turn(chunks=["x "] * DELTAS))
            fake.default = lambda request: Turn(chunks=["short ", "answer ", "here"])
            settings = svc.Settings.load(
                {
                    "state_dir": root / "state",
                    "workspace": root / "ws",
                    "port": 0,
                    "global_config": root / "g.json",
                    "web_ui": True,
                    "default_provider": "openai",
                    "providers": {
                        "openai": {"url": fake.url, "api_key": "sk-x", "default_model": "m"}
                    },
                },
                environ={"HOME": str(root)},
            )
            async with svc.open_engine(settings, serve_http=True) as engine:
                url = engine.url or ""
                async with httpx.AsyncClient(timeout=60) as client:
                    session = (await client.post(f"{url}/session", json={})).json()
                    result = await trio.to_thread.run_sync(browser_part, url, session["id"], rounds)
                    runs = (await client.get(f"{url}/session/{session['id']}/message")).json()
                    run_id = next(m["info"]["runID"] for m in runs if m["info"].get("runID"))
                    for index in range(LOG_RUNS):
                        await client.post(
                            f"{url}/session/{session['id']}/prompt_sync",
                            json={"parts": [{"type": "text", "text": f"more {index}"}]},
                        )
                    last_seq = engine.events.last_seq
                    config = PanelConfig(
                        host="127.0.0.1", port=0, engine_url=url, engine_token=None
                    )
                    async with trio.open_nursery() as nursery:
                        panel = await nursery.start(serve_panel, config)
                        direct: list[float] = []
                        proxied: list[float] = []
                        log_direct: list[float] = []
                        log_proxied: list[float] = []
                        via = f"{panel.url}/engine"
                        for _ in range(rounds * REPLAY_ROUNDS):
                            direct.append(await replay_seconds(client, url, run_id))
                            proxied.append(await replay_seconds(client, via, run_id))
                            log_direct.append(await replay_log_seconds(client, url, last_seq))
                            log_proxied.append(await replay_log_seconds(client, via, last_seq))
                        live_direct: list[float] = []
                        live_proxied: list[float] = []
                        live = (await client.post(f"{url}/session", json={})).json()["id"]
                        for index in range(rounds * REPLAY_ROUNDS):
                            pair = [(url, live_direct), (via, live_proxied)]
                            for stream_url, into in pair if index % 2 else pair[::-1]:
                                fake.enqueue(Turn(chunks=["y "] * LIVE_DELTAS))
                                into.append(await live_seconds(client, stream_url, url, live))
                        nursery.cancel_scope.cancel()
                    process, panel_url = await panel_process(url)
                    try:
                        apart_direct: list[float] = []
                        apart_proxied: list[float] = []
                        for index in range(rounds * REPLAY_ROUNDS):
                            pair = [(url, apart_direct), (f"{panel_url}/engine", apart_proxied)]
                            for base, into in pair if index % 2 else pair[::-1]:
                                into.append((await replay_log_seconds(client, base, last_seq))[0])
                        apart_live_direct: list[float] = []
                        apart_live_proxied: list[float] = []
                        for index in range(rounds * REPLAY_ROUNDS):
                            pair = [
                                (url, apart_live_direct),
                                (f"{panel_url}/engine", apart_live_proxied),
                            ]
                            for stream_url, into in pair if index % 2 else pair[::-1]:
                                fake.enqueue(Turn(chunks=["y "] * LIVE_DELTAS))
                                into.append(await live_seconds(client, stream_url, url, live))
                    finally:
                        process.terminate()
                        await process.wait()
                    apart_live = (apart_live_direct, apart_live_proxied)
    paints = result["paints"]
    longest = max(result["longtasks"], default=0.0)
    print(
        f"(a) first contentful paint, sessions page: median {statistics.median(paints):.0f} ms "
        f"(rounds {[round(p) for p in paints]})"
    )
    print(
        f"(b) 5,000 deltas into the chat view: longest task {longest:.0f} ms, "
        f"{len(result['longtasks'])} long tasks, {result['chars']} characters shown"
    )
    for label, a, b in (
        ("(c) replay of the run's events", direct, proxied),
        (f"(d) replay of the whole log ({last_seq} events)", log_direct, log_proxied),
    ):
        wall_a, wall_b = min(x[0] for x in a), min(x[0] for x in b)
        cpu_a, cpu_b = min(x[1] for x in a), min(x[1] for x in b)
        print(
            f"{label} over SSE, best of {len(a)}: wall {wall_a * 1000:.1f} ms direct, "
            f"{wall_b * 1000:.1f} ms through the panel ({100 * (wall_b / wall_a - 1):+.1f} %); "
            f"CPU {cpu_a * 1000:.1f} vs {cpu_b * 1000:.1f} ms ({100 * (cpu_b / cpu_a - 1):+.1f} %)"
        )

    apart_a, apart_b = statistics.median(apart_direct), statistics.median(apart_proxied)
    print(
        f"(f) replay of the whole log through `svc-engine panel` in its own process, median "
        f"of {len(apart_direct)}: wall {apart_a * 1000:.1f} ms direct, {apart_b * 1000:.1f} ms "
        f"through the panel ({100 * (apart_b / apart_a - 1):+.1f} %); best "
        f"{min(apart_direct) * 1000:.1f} vs {min(apart_proxied) * 1000:.1f} ms "
        f"({100 * (min(apart_proxied) / min(apart_direct) - 1):+.1f} %)"
    )
    for label, a, b in (
        ("(e) a live run", live_direct, live_proxied),
        ("(g) a live run through `svc-engine panel` in its own process", *apart_live),
    ):
        live_a, live_b = statistics.median(a), statistics.median(b)
        print(
            f"{label} of {LIVE_DELTAS} deltas followed over SSE, median of {len(a)}: "
            f"{live_a * 1000:.1f} ms direct, {live_b * 1000:.1f} ms through the panel "
            f"({100 * (live_b / live_a - 1):+.1f} %); "
            f"{statistics.median(LIVE_EVENTS):.0f} events each"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    trio.run(main, parser.parse_args().rounds)
