"""Soak: run a served engine under steady mixed load and watch for leaks and losses.

    .venv/bin/python tests/benchmarks/soak.py [--minutes 10] [--sessions 50]

An hour (``--minutes 60``) is the release soak. The engine runs as ``svc-engine serve``
(its own process, so its RSS is its own) against a scripted OpenAI-compatible server
(it echoes each prompt back as a streamed answer) and an MCP server, both loopback
fakes from tests/fakes. For the whole run:

* ``--sessions`` sessions each loop: open an SSE stream on their session, prompt, read
  the stream to the run's ``session.run.finished``, and check that every event the log
  holds for the run reached the stream (lost events) and the answer is the echo;
* SSE clients connect to ``/event``, read the preamble and drop, again and again;
* MCP ``tools/call`` through ``POST /tool/execute`` (``mcp.soak.add``);
* an automation (v2) fires every 5 seconds, its agent calling the same model.

Every minute it prints the engine's RSS (and SQLite's own share of it,
``svc_store_memory_bytes``), runs done, errors and lost events; at the end the
subscriber count (``svc_sse_subscribers`` from ``GET /metrics``, once every client has
gone) and the RSS growth after the warm-up (``--warmup-minutes``, default 2) three
ways: at the last minute under load, as the load stops, and after the engine has been
idle 65 s (its periodic heap trim has run: a leak would stay).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pathlib
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import IO, Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import attrs
import httpx
import trio

from tests.benchmarks._procs import start_server, stop
from tests.fakes import FakeToolCall, RecordedRequest, Turn, open_fake_openai
from tests.fakes.mcp_servers import open_mcp_server, workbench_server
from tests.fakes.turns import last_user_text

ROOT = pathlib.Path(__file__).resolve().parents[2]
SETTLE_S = 65.0


@attrs.define
class Tally:
    runs: int = 0
    lost_events: int = 0
    wrong_answers: int = 0
    churned_streams: int = 0
    mcp_calls: int = 0
    errors: Counter[str] = attrs.field(factory=Counter)

    def error(self, kind: str, detail: object = "") -> None:
        self.errors[kind] += 1
        if self.errors[kind] <= 3:
            print(f"  error {kind}: {detail}", file=sys.stderr, flush=True)


def copy_lines(source: IO[bytes] | None, path: pathlib.Path) -> None:
    if source is None:
        return
    with path.open("wb") as sink:
        for line in source:
            sink.write(line)
            sink.flush()


def rss_mb(pid: int) -> float:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def read_sse(response: httpx.Response) -> Any:
    """Yield each event's JSON from an SSE response."""
    buffer = ""
    async for text in response.aiter_text():
        buffer += text
        *frames, buffer = buffer.split("\n\n")
        for frame in frames:
            for line in frame.splitlines():
                if line.startswith("data: "):
                    yield json.loads(line[6:])


async def session_worker(
    client: httpx.AsyncClient, index: int, tally: Tally, stop_at: float
) -> None:
    sid = (await client.post("/session", json={"title": f"soak {index}"})).json()["id"]
    turn = 0
    while trio.current_time() < stop_at:
        turn += 1
        prompt = f"soak session {index} turn {turn} says hello"
        try:
            await one_run(client, sid, prompt, tally)
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            tally.error("session", repr(exc))
            await trio.sleep(1)


async def one_run(client: httpx.AsyncClient, sid: str, prompt: str, tally: Tally) -> None:
    seen: list[int] = []
    texts: dict[str, str] = {}  # by message: the user's part, then the answer's deltas
    async with client.stream("GET", "/event", params={"sessionID": sid}) as stream:
        events = read_sse(stream)
        first = await events.__anext__()  # server.connected: the subscription is live
        assert first["type"] == "server.connected", first
        reply = await client.post(
            f"/session/{sid}/prompt_async",
            params={"return": "run"},
            json={"parts": [{"type": "text", "text": prompt}]},
        )
        if reply.status_code != 202:
            tally.error(f"prompt {reply.status_code}", reply.text[:200])
            return
        run_id = reply.json()["runID"]
        async for event in events:
            props = event.get("properties") or {}
            envelope = event.get("envelope") or {}
            if (props.get("runID") or envelope.get("run_id")) != run_id:
                continue
            seen.append(envelope.get("seq"))
            if event["type"] == "message.part.updated" and "delta" in props:
                message = str((props.get("part") or {}).get("messageID"))
                texts[message] = texts.get(message, "") + props["delta"]
            if event["type"] == "session.run.finished":
                if props.get("status") != "completed":
                    tally.error("run " + str(props.get("status")), props.get("error"))
                break
        await events.aclose()
    logged = (await client.get(f"/runs/{run_id}/events", params={"limit": 1000})).json()
    live = set(seen)
    missing = [e for e in logged["events"] if e["seq"] not in live]
    tally.lost_events += len(missing)
    text = list(texts.values())[-1] if texts else ""
    if len(texts) != 2 or text.strip() != prompt:
        tally.wrong_answers += 1
        if tally.wrong_answers <= 3:
            print(f"  wrong answer: {text[:80]!r} for {prompt!r}", file=sys.stderr)
    tally.runs += 1


async def churn(client: httpx.AsyncClient, tally: Tally, stop_at: float) -> None:
    while trio.current_time() < stop_at:
        try:
            async with client.stream("GET", "/event") as stream:
                async for _event in read_sse(stream):
                    break  # connected: drop it
            tally.churned_streams += 1
        except httpx.HTTPError as exc:
            tally.error("churn", repr(exc))
        await trio.sleep(0.1)


def tools_turn(request: RecordedRequest) -> Turn:
    """The MCP worker's model, answering from the request alone as a real model does.

    ``add N and 1`` gets a call of ``mcp.soak.add``; a request ending with the tool's
    result gets ``added``. A scripted queue (the call turn, then the reply turn) is not
    enough: when a response is lost after the fake has taken its turn (a keep-alive
    connection the fake server closes just as the engine reuses it, under load), the
    engine rightly retries the request, and the retry took the NEXT turn: that run
    answered "added" without calling the tool, or its follow-up got an echo, which
    looked like a request routed to the default provider (that fake echoes too).
    """
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "tool":
        return Turn.reply("added")
    asked = re.search(r"add (\d+) and 1", last_user_text(messages))
    n = int(asked.group(1)) if asked else 0
    return Turn.calls(FakeToolCall("mcp.soak.add", {"a": n, "b": 1}, id=f"c{n}"))


async def mcp_worker(
    client: httpx.AsyncClient, tools_model: Any, tally: Tally, stop_at: float
) -> None:
    """Runs whose model calls ``mcp.soak.add`` (on a second scripted model server, so the
    echoing sessions never take its turns); the first call's approval is "always"."""
    tools_model.default = tools_turn
    body = {"title": "soak mcp", "model": {"providerID": "groq", "modelID": "tools"}}
    sid = (await client.post("/session", json=body)).json()["id"]
    n = 0
    while trio.current_time() < stop_at:
        n += 1
        result: Any = None
        answer = ""
        finished: dict[str, Any] = {}
        routes: set[Any] = set()
        before = len(tools_model.requests)
        async with client.stream("GET", "/event", params={"sessionID": sid}) as stream:
            events = read_sse(stream)
            await events.__anext__()
            reply = await client.post(
                f"/session/{sid}/prompt_async",
                params={"return": "run"},
                json={
                    "parts": [{"type": "text", "text": f"add {n} and 1"}],
                    "model": {"providerID": "groq", "modelID": "tools"},
                },
            )
            if reply.status_code != 202:
                tally.error(f"mcp prompt {reply.status_code}", reply.text[:200])
                await events.aclose()
                continue
            run_id = reply.json()["runID"]
            kinds: list[str] = []
            async for event in events:
                props = event.get("properties") or {}
                kind = event["type"]
                kinds.append(kind)
                if kind == "permission.asked":
                    await client.post(
                        f"/permission/{props['requestID']}/reply", json={"reply": "always"}
                    )
                if kind == "provider.usage" and props.get("runID") == run_id:
                    routes.add((props.get("providerID"), props.get("modelID")))
                part = props.get("part") or {}
                finished_tool = part.get("state") in ("completed", "failed", "denied")
                if kind == "message.part.updated" and part.get("type") == "tool" and finished_tool:
                    result = part.get("result") if part["state"] == "completed" else part
                if kind == "message.part.updated" and "delta" in props and result is not None:
                    answer += props["delta"]
                if kind == "session.run.finished" and props.get("runID") == run_id:
                    finished = props
                    break
            await events.aclose()
        # Every check of the run, so a failure is reported by the run that had it
        # (the run's status too: an error after the tool call used to pass unseen).
        ok = (
            str(result).strip() == str(n + 1)
            and answer.strip() == "added"
            and finished.get("status") == "completed"
            and routes == {("groq", "tools")}
        )
        if ok:
            tally.mcp_calls += 1
        else:
            tally.error(
                "mcp call",
                f"result {result}, answer {answer!r}, status {finished.get('status')} "
                f"{finished.get('error')}, routes {routes}, after {kinds[-8:]}; "
                f"model requests {len(tools_model.requests) - before}",
            )
        await trio.sleep(0.2)


def automation() -> dict[str, Any]:
    return {
        "name": "soak-ticker",
        "status": "active",
        "schedule": {
            "type": "interval",
            "interval_seconds": 5,
            "timezone": "UTC",
            "misfire_policy": "skip",
        },
        "agents": [
            {
                "agent_id": "ticker",
                "display_name": "Ticker",
                "tool_policy": {"allowlist": ["read"]},
                "mcp_policy": {"allowed_servers": []},
            }
        ],
        "flow": {"nodes": [{"node_id": "tick", "agent_id": "ticker", "objective": "tick"}]},
    }


def metric(text: str, name: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


async def main(minutes: float, sessions: int, warmup: int) -> int:
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="svc-soak-"))
    tally = Tally()
    async with (
        open_fake_openai() as model,
        open_fake_openai() as tools_model,
        open_mcp_server(workbench_server()) as mcp,
    ):
        config = {
            "default_provider": "openai",
            "providers": {
                "openai": {"url": model.url, "api_key": "sk-soak", "default_model": "fake"},
                "groq": {"url": tools_model.url, "api_key": "sk-soak", "default_model": "tools"},
            },
            "metrics_enabled": True,
            "max_concurrent_runs": sessions * 2,
            "max_sse_streams_per_client": sessions * 4,
        }
        (tmp / "config.json").write_text(json.dumps(config))
        env = {
            "HOME": str(tmp),
            "XDG_CONFIG_HOME": str(tmp / "xdg"),
            "SVC_STATE_DIR": str(tmp / "state"),
            "SVC_WORKSPACE": str(tmp),
            "SVC_LOG_LEVEL": "warning",
        }
        argv = [
            str(ROOT / ".venv" / "bin" / "svc-engine"),
            "serve",
            "--port",
            "0",
            "--quiet",
            "--config",
            str(tmp / "config.json"),
        ]
        process, url, _ = start_server(argv, env=env)
        final_rss = settled_rss = 0.0
        engine_log = tmp / "engine.log"
        # The engine's warnings (provider retries among them) go to a file: a pipe
        # nobody reads would, once full, block the engine's logging.
        drain = threading.Thread(target=copy_lines, args=(process.stderr, engine_log), daemon=True)
        drain.start()
        try:
            async with httpx.AsyncClient(base_url=url, timeout=60.0) as client:
                await client.post("/mcp", json={"name": "soak", "transport": mcp.url})
                connected = await client.post("/mcp/soak/connect")
                assert connected.status_code == 200, connected.text
                made = await client.post("/automations/v2", json=automation())
                assert made.status_code in (200, 201), made.text
                start = trio.current_time()
                stop_at = start + minutes * 60
                samples: list[tuple[float, float]] = []
                async with trio.open_nursery() as nursery:
                    for i in range(sessions):
                        nursery.start_soon(session_worker, client, i, tally, stop_at)
                    for _ in range(4):
                        nursery.start_soon(churn, client, tally, stop_at)
                    nursery.start_soon(mcp_worker, client, tools_model, tally, stop_at)
                    minute = 0
                    while trio.current_time() < stop_at:
                        await trio.sleep(min(60.0, max(0.0, stop_at - trio.current_time())))
                        minute += 1
                        # The echoing model's record of every request is not read here;
                        # kept for ten minutes it grew this process past 1 GB, and the
                        # collector's pauses over it delayed the fakes' answers.
                        model.requests.clear()
                        rss = rss_mb(process.pid)
                        samples.append((minute, rss))
                        page = (await client.get("/metrics")).text
                        store_mb = (metric(page, "svc_store_memory_bytes") or 0.0) / 2**20
                        print(
                            f"minute {minute:3d}: rss {rss:7.1f} MB  (SQLite {store_mb:5.1f} MB)  "
                            f"runs {tally.runs:6d}  "
                            f"lost {tally.lost_events}  errors {sum(tally.errors.values())}  "
                            f"streams churned {tally.churned_streams}  mcp {tally.mcp_calls}",
                            flush=True,
                        )
                # Every client is gone: the only subscribers left are the engine's own.
                await trio.sleep(1)
                scraped = (await client.get("/metrics")).text
                final_rss = rss_mb(process.pid)
                # Idle for a while: the engine's periodic heap trim (HEAP_TRIM_INTERVAL_S,
                # 60 s) gives back what the last requests freed. A leak stays.
                await trio.sleep(SETTLE_S)
                settled_rss = rss_mb(process.pid)
        finally:
            stop(process)
            drain.join(timeout=10)
    fires = metric(scraped, "svc_scheduler_tick_seconds_count")
    warm_samples = [rss for minute, rss in samples if minute == warmup]
    warm = warm_samples[0] if warm_samples else (samples[0][1] if samples else final_rss)
    print(f"sessions {sessions}, {minutes:g} min, engine pid {process.pid}")
    print(f"runs completed {tally.runs}, answers wrong {tally.wrong_answers}")
    print(f"lost events {tally.lost_events}, errors {dict(tally.errors) or 0}")
    print(f"SSE streams churned {tally.churned_streams}, MCP calls {tally.mcp_calls}")
    print(f"scheduler ticks {fires}, runs by status:")
    for line in scraped.splitlines():
        if line.startswith("svc_run_duration_seconds_count"):
            print(f"  {line}")
    print(
        f"subscribers at the end: {metric(scraped, 'svc_sse_subscribers')}, "
        f"open SSE responses: {metric(scraped, 'svc_sse_streams')}"
    )
    last = samples[-1][1] if samples else final_rss
    print(
        f"RSS after warm-up (minute {warmup}) {warm:.1f} MB; at the last minute under load "
        f"{last:.1f} MB (growth {last - warm:+.1f} MB); at the end {final_rss:.1f} MB "
        f"(growth {final_rss - warm:+.1f} MB); idle {SETTLE_S:.0f} s later "
        f"{settled_rss:.1f} MB (growth {settled_rss - warm:+.1f} MB)"
    )
    retries = engine_log.read_text(errors="replace").count("provider request failed; retrying")
    print(f"provider retries {retries} (engine log {engine_log})")
    ok = tally.lost_events == 0 and not tally.errors and tally.wrong_answers == 0
    return 0 if ok else 1


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--sessions", type=int, default=50)
    # SQLite's page caches (16 MB for each of the three connections) fill as the
    # database grows during the first minutes: growth is measured after them.
    parser.add_argument("--warmup-minutes", type=int, default=2)
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    # The fakes and the HTTP client log every request; the soak reports totals.
    logging.basicConfig(level=logging.WARNING)
    for name in ("httpx", "mcp", "hypercorn", "tests"):
        logging.getLogger(name).setLevel(logging.WARNING)
    return trio.run(main, args.minutes, args.sessions, args.warmup_minutes)


if __name__ == "__main__":
    started = time.time()
    code = run(sys.argv[1:])
    print(f"wall time {time.time() - started:.0f} s")
    sys.exit(code)
