"""Start-up to healthy, and idle memory, of ``svc-engine serve``.

    /tmp/venv/bin/python tests/benchmarks/bench_startup.py

Each round starts ``svc-engine serve --port 0`` on a fresh state directory and
measures the time from spawning the process to the first ``GET
/global/health`` answering ``ready: true`` (wall time, and the CPU time the
process used to get there, which a busy machine distorts far less), then the
resident memory after a second of idling. Baseline measured in the same run: the bare quart-trio app
(the same stack with nothing of ours). Targets: start-up <= 1.0 s, idle RSS <= 120 MB.

It measures the ``svc-engine`` of the interpreter that runs it. Run it with the
environment the README's first command builds (``.venv/bin/python
tests/benchmarks/bench_startup.py`` after ``pip install .``) to measure what
users start; the test environment (an editable install with the test extra)
starts somewhat slower, its editable-install finder and extra packages included.
A speed probe before and after shows how fast the (shared, variable) machine was.
"""

from __future__ import annotations

import argparse
import compileall
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx

from tests.benchmarks._procs import cpu_seconds, rss_kb, start_server, stop

ROUNDS = 5
HERE = pathlib.Path(__file__).resolve().parent
ENGINE = str(pathlib.Path(sys.executable).parent / "svc-engine")


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    started = time.perf_counter()
    process, url, _ = start_server(argv, env=env)
    try:
        with httpx.Client(trust_env=False, timeout=10) as client:
            while not client.get(url + "/global/health").json().get("ready"):
                pass
        ready = time.perf_counter() - started
        cpu = cpu_seconds(process.pid)
        time.sleep(1.0)  # idle before reading memory
        return ready, cpu, rss_kb(process.pid) / 1024
    finally:
        stop(process)


def speed_probe() -> float:
    """Seconds for a fixed pure-Python loop: how fast this machine is right now (it varies)."""
    started = time.process_time()
    total = 0
    for i in range(2_000_000):
        total += i
    return time.process_time() - started


def main(rounds: int = ROUNDS) -> None:
    root = HERE.parents[1]
    for package in ("actors", "supervisors", "svc", "cli"):
        compileall.compile_dir(root / package, quiet=1)
    probe_before = speed_probe()
    engine_ready, engine_cpu, engine_rss, bare_ready, bare_cpu, bare_rss = [], [], [], [], [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            env = {"SVC_WORKSPACE": tmp, "XDG_CONFIG_HOME": tmp, "SVC_LOG_LEVEL": "warning"}
            ready, cpu, rss = measure([ENGINE, "serve", "--port", "0", "--state-dir", tmp], env)
            engine_ready.append(ready)
            engine_cpu.append(cpu)
            engine_rss.append(rss)
            ready, cpu, rss = measure([sys.executable, str(HERE / "_bare_health_app.py")], {})
            bare_ready.append(ready)
            bare_cpu.append(cpu)
            bare_rss.append(rss)
    er, br = statistics.median(engine_ready), statistics.median(bare_ready)
    ec, bc = statistics.median(engine_cpu), statistics.median(bare_cpu)
    em, bm = statistics.median(engine_rss), statistics.median(bare_rss)
    print(
        f"start-up to healthy: engine {er:.2f} s, bare app {br:.2f} s (ratio {er / br:.2f}; "
        "target <= 1.0 s)"
    )
    print(
        f"  best of {rounds}: engine {min(engine_ready):.2f} s, bare app {min(bare_ready):.2f} s; "
        f"rounds: engine {', '.join(f'{t:.2f}' for t in engine_ready)}"
    )
    print(f"CPU time to healthy: engine {ec:.2f} s, bare app {bc:.2f} s (ratio {ec / bc:.2f})")
    print(
        f"idle RSS: engine {em:.0f} MB, bare app {bm:.0f} MB (ratio {em / bm:.2f}; target <= 120 "
        "MB)"
    )
    print(
        f"machine speed probe (2M-step loop): {probe_before:.3f} s before, {speed_probe():.3f} s "
        "after"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    main(parser.parse_args().rounds)
