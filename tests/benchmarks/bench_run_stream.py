"""End-to-end streaming benchmark: model → engine run → SSE client.

    /tmp/venv/bin/python tests/benchmarks/bench_run_stream.py [--sessions 200]

The scripted OpenAI-compatible server streams one answer of 5,000 text deltas.
Measured in the same run, best of several rounds:

  (a) a plain httpx client reading that stream and decoding each chunk (the
      floor for any client that looks inside the chunks);
  (b) the engine: prompt_async, the run streams the same answer from the same
      server, and an SSE client on ``/event?sessionID=`` receives every delta
      and the terminal ``session.run.finished``.

Prints the times and (b)/(a) (target ≤ 1.5). Then runs ``--sessions``
concurrent sessions, each streaming such an answer to its own SSE client, and
checks that every run completed and every client received every character.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

import svc
from tests.fakes import Turn, open_fake_openai

DELTAS = 5_000
ROUNDS = 5
RAW_BODY = {
    "model": "fake-model",
    "messages": [{"role": "user", "content": "stream please"}],
    "stream": True,
    "stream_options": {"include_usage": True},
}


async def plain_read(http: httpx.AsyncClient, url: str) -> int:
    chars = 0
    async with http.stream("POST", url + "/chat/completions", json=RAW_BODY) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: {"):
                chunk = json.loads(line[6:])
                for choice in chunk.get("choices") or ():
                    chars += len((choice.get("delta") or {}).get("content") or "")
    return chars


async def engine_run(client: httpx.AsyncClient, *, expect_chars: int) -> tuple[float, int]:
    """One run streamed to an SSE client; returns (seconds, characters received)."""
    sid = (await client.post("/session", json={})).json()["id"]
    chars = 0
    done = trio.Event()
    subscribed = trio.Event()

    async def watch() -> None:
        nonlocal chars
        async with client.stream("GET", "/event", params={"sessionID": sid}) as response:
            buffer = ""
            with trio.CancelScope() as scope:
                async for text in response.aiter_text():
                    subscribed.set()
                    buffer += text
                    *frames, buffer = buffer.split("\n\n")
                    for frame in frames:
                        for line in frame.splitlines():
                            if not line.startswith("data: "):
                                continue
                            event = json.loads(line[6:])
                            props = event.get("properties", {})
                            if event["type"] == "message.part.updated" and "delta" in props:
                                chars += len(props["delta"])
                            elif event["type"] == "session.run.finished":
                                done.set()
                                scope.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        await subscribed.wait()
        started = time.perf_counter()
        response = await client.post(
            f"/session/{sid}/prompt_async",
            params={"return": "run"},
            json={"parts": [{"type": "text", "text": "go"}]},
        )
        assert response.status_code == 202, response.text
        await done.wait()
        elapsed = time.perf_counter() - started
    # The user's own text ("go") is echoed as a delta too.
    return elapsed, chars - len("go")


async def main(sessions: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with (
            open_fake_openai() as fake,
            httpx.AsyncClient(trust_env=False, timeout=60) as http,
        ):
            settings = svc.Settings.load(
                {
                    "state_dir": pathlib.Path(tmp) / "state",
                    "workspace": tmp,
                    "port": 0,
                    "default_provider": "openai",
                    "global_config": pathlib.Path(tmp) / "none.json",
                    "providers": {
                        "openai": {
                            "url": fake.url,
                            "api_key": "sk-bench",
                            "default_model": "fake-model",
                        }
                    },
                },
                environ={},
            )
            turn = Turn(chunks=["x"] * DELTAS)
            async with (
                svc.open_engine(settings, serve_http=True) as engine,
                httpx.AsyncClient(
                    base_url=engine.url,
                    trust_env=False,
                    timeout=120,
                    limits=httpx.Limits(
                        max_connections=None
                    ),  # an SSE stream and a prompt per session
                ) as client,
            ):
                fake.default = lambda request: turn  # every request streams the same answer
                await plain_read(http, fake.url)
                await engine_run(client, expect_chars=DELTAS)  # warm up
                plain, through = [], []
                for _ in range(ROUNDS):
                    started = time.perf_counter()
                    assert await plain_read(http, fake.url) == DELTAS
                    plain.append(time.perf_counter() - started)
                    elapsed, chars = await engine_run(client, expect_chars=DELTAS)
                    assert chars == DELTAS, chars
                    through.append(elapsed)
                a, b = min(plain), min(through)
                print(f"(a) plain httpx read + decode of {DELTAS} deltas: {a * 1000:.1f} ms")
                print(f"(b) engine run to an SSE client:               {b * 1000:.1f} ms")
                print(f"ratio (b)/(a) = {b / a:.2f}   (target <= 1.5)")

                results: list[tuple[float, int]] = []

                async def one() -> None:
                    results.append(await engine_run(client, expect_chars=DELTAS))

                started = time.perf_counter()
                async with trio.open_nursery() as nursery:
                    for _ in range(sessions):
                        nursery.start_soon(one)
                wall = time.perf_counter() - started
                lost = sum(1 for _, chars in results if chars != DELTAS)
                print(
                    f"{sessions} concurrent sessions x {DELTAS} deltas: {wall:.2f} s wall, "
                    f"{len(results)} finished, {lost} with lost text"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    trio.run(main, parser.parse_args().sessions)
