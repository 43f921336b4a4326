"""Provider streaming benchmark (a plain script, not collected by pytest).

    /tmp/venv/bin/python tests/benchmarks/bench_stream.py

The fake OpenAI server streams one answer of 5,000 text deltas. Measured in the
same run, best of several rounds:
  (a) a plain httpx client reading the raw SSE stream line by line;
  (a2) the same, also decoding each data line with json.loads (the floor for
       any client that looks inside the chunks);
  (b) OpenAICompatProvider.chat consuming it with a no-op sink;
  (c) the parser alone (OpenAIStream fed the captured lines, no I/O).
Prints the times and the ratio (b)/(a). Both (a) and (b) include the fake
server's own work, which is the same for both.
"""

from __future__ import annotations

import json
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

from svc.providers import ChatMessage, ChatRequest, OpenAICompatProvider
from svc.providers.endpoint import Endpoint
from svc.providers.openai_stream import OpenAIStream
from svc.providers.tool_names import ToolNameMap
from svc.providers.types import StreamEvent
from tests.fakes import FakeOpenAI, Turn, open_fake_openai

DELTAS = 5_000
ROUNDS = 7
REQUEST = ChatRequest(model="gpt-4o", messages=(ChatMessage("user", "stream please"),))
RAW_BODY = {
    "model": "gpt-4o",
    "messages": [{"role": "user", "content": "stream please"}],
    "stream": True,
    "stream_options": {"include_usage": True},
}


def noop(event: StreamEvent) -> None:
    return None


async def raw_read(
    server: FakeOpenAI, http: httpx.AsyncClient, *, decode: bool = False
) -> list[str]:
    lines: list[str] = []
    async with http.stream("POST", server.url + "/chat/completions", json=RAW_BODY) as response:
        async for line in response.aiter_lines():
            lines.append(line)
            if decode and line.startswith("data: {"):
                json.loads(line[6:])
    return lines


async def main() -> None:
    async with open_fake_openai() as server, httpx.AsyncClient(trust_env=False) as http:
        provider = OpenAICompatProvider(Endpoint("openai", server.url, api_key="sk-bench"), http)
        turn = Turn(chunks=["x"] * DELTAS)

        raw_times, json_times, provider_times = [], [], []
        lines: list[str] = []
        # Warm up both paths (connection, imports, caches) before measuring.
        server.enqueue(turn, turn)
        await raw_read(server, http)
        await provider.chat(REQUEST, noop)
        for _ in range(ROUNDS):
            server.enqueue(turn)
            started = time.perf_counter()
            lines = await raw_read(server, http)
            raw_times.append(time.perf_counter() - started)

            server.enqueue(turn)
            started = time.perf_counter()
            await raw_read(server, http, decode=True)
            json_times.append(time.perf_counter() - started)

            server.enqueue(turn)
            started = time.perf_counter()
            completion = await provider.chat(REQUEST, noop)
            provider_times.append(time.perf_counter() - started)
            assert len(completion.text) == DELTAS

        parse_times = []
        for _ in range(ROUNDS):
            parser = OpenAIStream("openai", ToolNameMap())
            started = time.perf_counter()
            for line in lines:
                parser.feed(line)
            parser.close()
            parse_times.append(time.perf_counter() - started)
            assert parser.finished and len(parser.completion().text) == DELTAS

    raw, decoded, prov, parse = (
        min(raw_times),
        min(json_times),
        min(provider_times),
        min(parse_times),
    )
    print(f"{DELTAS} deltas, best of {ROUNDS} (median in parentheses)")
    print(
        f"  (a) raw httpx aiter_lines:     {raw * 1000:8.1f} ms "
        f"({statistics.median(raw_times) * 1000:.1f})"
    )
    print(
        f"  (a2) raw + json.loads:         {decoded * 1000:8.1f} ms "
        f"({statistics.median(json_times) * 1000:.1f})"
    )
    print(
        f"  (b) OpenAICompatProvider.chat: {prov * 1000:8.1f} ms "
        f"({statistics.median(provider_times) * 1000:.1f})"
    )
    print(
        f"  (c) parser only, no I/O:       {parse * 1000:8.1f} ms ({parse / DELTAS * 1e6:.2f} "
        "µs/delta)"
    )
    print(f"  ratio (b)/(a): {prov / raw:.2f}   (b)/(a2): {prov / decoded:.2f}")


if __name__ == "__main__":
    trio.run(main)
