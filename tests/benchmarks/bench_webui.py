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
      ``/event`` from ``Last-Event-ID: 0`` to its last event, best of the rounds.

(c) and (d) give wall time and this process's CPU time (engine, panel and client
all run in it): on a machine shared with other work the wall time is mostly the
scheduler's noise, while the CPU time is what the stream costs.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
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
                        nursery.cancel_scope.cancel()
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    trio.run(main, parser.parse_args().rounds)
