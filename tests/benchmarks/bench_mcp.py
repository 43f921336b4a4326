"""MCP call benchmark (a plain script, not collected by pytest).

    /tmp/venv/bin/python tests/benchmarks/bench_mcp.py [--json]

A real MCP server built with the official SDK (the tests' ``workbench``, served
over Streamable HTTP on loopback; SSE responses, or JSON with ``--json``).
Measured in the same run, rounds interleaved, best of several:
  (a) the SDK's own client (ClientSession over streamable_http_client), called
      directly: 100 concurrent ``tools/call``, then 200 sequential ones;
  (b) the same calls through the engine: ``engine.mcp.call`` (an ask to the
      connector actor, argument repair, result mapping, auth bookkeeping);
  (c) the same through the registry tool ``mcp.bench.add`` (what a run executes).
Every result is checked (a + b). Prints per-call times and the ratios (b)/(a),
(c)/(a): the engine's overhead per call relative to the SDK alone, in wall-clock
time and in this process's CPU time (server, client and engine share one
process; on a machine shared with other work the CPU figures are the steadier).
"""

from __future__ import annotations

import logging
import pathlib
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx2
import trio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import svc
from svc.mcp import ConnectorInput
from svc.mcp.client import KEEPALIVE_EXPIRY_S
from svc.tools import ToolContext
from tests.fakes.mcp_servers import open_mcp_server, workbench_server

CONCURRENT = 100
SEQUENTIAL = 200
ROUNDS = 5

Call = Callable[[int], Awaitable[str]]


Timing = tuple[float, float]
"""(wall seconds, process CPU seconds)"""


async def concurrent(call: Call) -> Timing:
    results: dict[int, str] = {}

    async def one(i: int) -> None:
        results[i] = await call(i)

    wall, cpu = time.perf_counter(), time.process_time()
    async with trio.open_nursery() as nursery:
        for i in range(CONCURRENT):
            nursery.start_soon(one, i)
    elapsed = (time.perf_counter() - wall, time.process_time() - cpu)
    assert results == {i: str(i + 7) for i in range(CONCURRENT)}, "wrong results"
    return elapsed


async def sequential(call: Call) -> Timing:
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(SEQUENTIAL):
        assert await call(i) == str(i + 7), "wrong result"
    return time.perf_counter() - wall, time.process_time() - cpu


async def main(json_response: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = svc.Settings.load(
            {"state_dir": pathlib.Path(tmp) / "state", "workspace": tmp, "port": 0},
            environ={"HOME": tmp},
        )
        async with (
            open_mcp_server(workbench_server(), json_response=json_response) as server,
            svc.open_engine(settings) as engine,
            # The same pool settings as a connector's own client (see svc/mcp/client.py).
            httpx2.AsyncClient(
                timeout=httpx2.Timeout(10.0, read=None),
                limits=httpx2.Limits(
                    max_connections=512,
                    max_keepalive_connections=128,
                    keepalive_expiry=KEEPALIVE_EXPIRY_S,
                ),
            ) as http,
            streamable_http_client(server.url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            await engine.mcp.add(ConnectorInput(name="bench", transport=server.url))
            assert (await engine.mcp.connect("bench"))["ok"]
            tool = engine.tools.require("mcp.bench.add")
            ctx = ToolContext(workspace=engine.workspace, http=engine.http)

            async def direct(i: int) -> str:
                result = await session.call_tool("add", {"a": i, "b": 7})
                return result.content[0].text  # type: ignore[union-attr]

            async def through_engine(i: int) -> str:
                return (await engine.mcp.call("bench", "add", {"a": i, "b": 7})).output

            async def through_registry(i: int) -> str:
                return (await tool.execute({"a": i, "b": 7}, ctx)).output

            paths: dict[str, Call] = {
                "sdk": direct,
                "engine": through_engine,
                "registry": through_registry,
            }
            times: dict[tuple[str, str], list[Timing]] = {}
            for call in paths.values():  # warm-up: connections, caches
                await concurrent(call)
            for _ in range(ROUNDS):
                for name, call in paths.items():
                    times.setdefault((name, "concurrent"), []).append(await concurrent(call))
                    times.setdefault((name, "sequential"), []).append(await sequential(call))

    mode = "JSON" if json_response else "SSE"
    print(f"MCP tools/call, {mode} responses, best of {ROUNDS} rounds (median in parentheses)")
    best: dict[tuple[str, str, int], float] = {}
    for (name, kind), values in times.items():
        count = CONCURRENT if kind == "concurrent" else SEQUENTIAL
        for axis in (0, 1):
            series = [v[axis] for v in values]
            best[(name, kind, axis)] = min(series) / count
            label = "wall" if axis == 0 else "cpu "
            print(
                f"  {name:9s} {kind:10s} {label} {count:4d} calls: {min(series) * 1000:8.1f} ms"
                f"  = {best[(name, kind, axis)] * 1e6:7.0f} µs/call "
                f"({statistics.median(series) * 1000:.1f} ms)"
            )
    for kind in ("concurrent", "sequential"):
        for axis, label in ((0, "wall"), (1, "cpu ")):
            sdk = best[("sdk", kind, axis)]
            print(
                f"  ratio {kind:10s} {label}: engine/sdk {best[('engine', kind, axis)] / sdk:.2f}"
                f"   registry/sdk {best[('registry', kind, axis)] / sdk:.2f}"
            )


def run(argv: list[str]) -> Any:
    # Request lines of the SDK, httpx2 and hypercorn would drown the figures.
    logging.disable(logging.INFO)
    return trio.run(main, "--json" in argv)


if __name__ == "__main__":
    run(sys.argv[1:])
