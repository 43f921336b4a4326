"""PostgreSQL store and replicas: appends, cross-replica fan-out, run overhead, takeover.

    .venv/bin/python tests/benchmarks/bench_pg.py

Starts a private PostgreSQL cluster (tests/pg.py: Debian's ``postgresql``
package, a temporary directory, a free port), then:

1. Appends: bursts of 10,000 events published back to back on the shared log,
   each burst flushed (numbered and committed by the database), best of 5.
   Target >= 20,000 events/s.
2. Fan-out delay: two replicas' event logs on one database; 300 single events
   published on A, one at a time; the delay until B's subscriber has each.
   Target p50 < 20 ms.
3. Run streaming overhead: the same run (the offline echo model streaming a
   20,000-word answer, one delta per word) on an engine on SQLite and on one on
   PostgreSQL, both open at once and prompted alternately (so both see the
   same load on a shared machine), best of 15 each (and the ratio of the
   medians), each run in a new session. Target: PostgreSQL at most 1.3x SQLite.
   Then again with every run in one session per engine, for comparison with
   earlier figures: there each answer also carries the growing transcript.
4. Takeover: a replica process owning a session is killed with SIGKILL; the
   time until a prompt to that session through the other replica has been
   answered (lease time 2,000 ms). Reported, with the lease time it includes.
"""

from __future__ import annotations

import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

import svc
from svc.clock import SystemClock
from svc.events import EventFilter, open_event_log
from svc.store import open_store
from tests.pg import TEMPLATE, PgCluster, find_bin_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]
BURST = 10_000
FANOUT_SAMPLES = 300
ANSWER_WORDS = 20_000
RUNS = 15
LEASE_MS = 2000


async def appends(url: str, tmp: pathlib.Path) -> float:
    best = 0.0
    async with open_store(url, state_dir=tmp) as db, open_event_log(db, SystemClock()) as log:
        for _ in range(5):
            started = time.perf_counter()
            for i in range(BURST):
                log.publish(
                    "bench.event",
                    {"sessionID": "s1", "runID": "r1", "i": i, "text": "some delta text"},
                )
            await log.flush()
            best = max(best, BURST / (time.perf_counter() - started))
    return best


async def fanout(url: str, tmp: pathlib.Path) -> list[float]:
    delays = []
    async with (
        open_store(url, state_dir=tmp) as db_a,
        open_store(url, state_dir=tmp) as db_b,
        open_event_log(db_a, SystemClock()) as a,
        open_event_log(db_b, SystemClock()) as b,
    ):
        with b.subscribe(EventFilter(session_id="fan")) as sub:
            for i in range(FANOUT_SAMPLES):
                started = time.perf_counter()
                a.publish("bench.fan", {"sessionID": "fan", "i": i})
                got = await sub.receive()
                delays.append((time.perf_counter() - started) * 1000)
                assert got[-1].properties["i"] == i
                await trio.sleep(0.005)  # single events, not a burst
    return delays


def _settings(tmp: pathlib.Path, name: str, **extra: object) -> svc.Settings:
    return svc.Settings.load(
        {
            "state_dir": tmp / f"state-{name}",
            "workspace": str(tmp),
            "port": 0,
            "global_config": tmp / "none.json",
            **extra,
        },
        environ={},
    )


async def run_times(
    sqlite: svc.Settings, pg: svc.Settings, *, fresh_sessions: bool = True
) -> tuple[list[float], list[float]]:
    """The same run on both engines, alternating (so both see the same machine load).

    ``fresh_sessions``: each run in a new session (created untimed), so every run is
    the same work; otherwise all runs go to one session per engine, whose transcript
    (every earlier prompt and answer, 180 KB each) every ``prompt_sync`` answer
    carries, so later runs also measure reading and sending a growing transcript."""
    text = " ".join(f"word{i}" for i in range(ANSWER_WORDS))
    times: tuple[list[float], list[float]] = ([], [])
    async with (
        svc.open_engine(sqlite, serve_http=True, components=[]) as engine_a,
        svc.open_engine(pg, serve_http=True, components=[]) as engine_b,
        httpx.AsyncClient(base_url=engine_a.url or "", timeout=120) as client_a,
        httpx.AsyncClient(base_url=engine_b.url or "", timeout=120) as client_b,
    ):
        clients = (client_a, client_b)
        sids = [(await c.post("/session", json={})).json()["id"] for c in clients]
        for _ in range(RUNS):
            if fresh_sessions:
                sids = [(await c.post("/session", json={})).json()["id"] for c in clients]
            for client, sid, measured in zip(clients, sids, times, strict=True):
                started = time.perf_counter()
                response = await client.post(
                    f"/session/{sid}/prompt_sync", json={"parts": [{"type": "text", "text": text}]}
                )
                assert response.json()["status"] == "completed", response.text
                measured.append(time.perf_counter() - started)
    return times


async def takeover(url: str, tmp: pathlib.Path) -> float:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp / "home"),
        "SVC_STATE_DIR": str(tmp / "state-victim"),
        "SVC_WORKSPACE": str(tmp),
        "SVC_GLOBAL_CONFIG": str(tmp / "none.json"),
        "SVC_STORE_URL": url,
        "SVC_CLUSTER_LEASE_MS": str(LEASE_MS),
    }
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "tests.svc.cluster.replica_process"],
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    seen = b""
    while (match := re.search(rb"listening on (http://\S+)", seen)) is None:
        chunk = await process.stderr.receive_some(4096)
        if not chunk:
            raise RuntimeError("the replica exited early:\n" + seen.decode())
        seen += chunk
    victim_url = match.group(1).decode()
    settings = _settings(tmp, "survivor", store_url=url, cluster_lease_ms=LEASE_MS)
    prompt = {"parts": [{"type": "text", "text": "hello"}]}
    try:
        async with (
            svc.open_engine(settings, serve_http=True, components=[]) as survivor,
            httpx.AsyncClient(base_url=victim_url, timeout=60) as victim_client,
            httpx.AsyncClient(base_url=survivor.url or "", timeout=60) as client,
        ):
            sid = (await victim_client.post("/session", json={})).json()["id"]
            await victim_client.post(f"/session/{sid}/prompt_sync", json=prompt)
            process.kill()
            await process.wait()
            started = time.perf_counter()
            response = await client.post(f"/session/{sid}/prompt_sync", json=prompt)
            assert response.json()["status"] == "completed", response.text
            return time.perf_counter() - started
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def main() -> None:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed: bash tests/system-packages.sh")
    cluster = PgCluster(bin_dir)
    try:
        cluster.start()
        cluster.build_template()

        def fresh(name: str) -> str:
            return cluster.create_database(name, template=TEMPLATE)

        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = pathlib.Path(tmp_name)
            rate = await appends(fresh("appends"), tmp)
            print(f"appends: {rate:,.0f} events/s (target >= 20,000)")
            delays = await fanout(fresh("fanout"), tmp)
            q = statistics.quantiles(delays, n=100)
            print(
                f"fan-out A->B: p50 {statistics.median(delays):.1f} ms, p95 {q[94]:.1f} ms,"
                f" max {max(delays):.1f} ms (target p50 < 20 ms)"
            )
            for fresh_sessions, label in ((True, "new session each"), (False, "one session")):
                sqlite_runs, pg_runs = await run_times(
                    _settings(tmp, f"sqlite-{label}"),
                    _settings(tmp, f"pg-{label}", store_url=fresh(f"runs{int(fresh_sessions)}")),
                    fresh_sessions=fresh_sessions,
                )
                sqlite, pg = min(sqlite_runs), min(pg_runs)
                ratio = statistics.median(pg_runs) / statistics.median(sqlite_runs)
                target = "; target <= 1.3x" if fresh_sessions else ""
                print(
                    f"run of {ANSWER_WORDS} streamed words ({label}), best of {RUNS}: SQLite "
                    f"{sqlite * 1000:.0f} ms, PostgreSQL {pg * 1000:.0f} ms, ratio"
                    f" {pg / sqlite:.2f}x (of medians {ratio:.2f}x{target})"
                )
            took = await takeover(fresh("takeover"), tmp)
            print(
                f"takeover after SIGKILL: prompt answered by the survivor {took * 1000:.0f} ms"
                f" after the kill (lease {LEASE_MS} ms)"
            )
    finally:
        cluster.stop()


if __name__ == "__main__":
    trio.run(main)
