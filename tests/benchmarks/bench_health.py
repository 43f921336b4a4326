"""GET /global/health throughput: the engine against a bare quart-trio app.

    /tmp/venv/bin/python tests/benchmarks/bench_health.py

Both servers run as subprocesses on the same hypercorn settings, pinned to CPU
0; the load generator (32 keep-alive connections) runs here, pinned to CPU 1.
Rounds alternate between the two servers; the best round of each counts.
Prints requests per second and the ratio engine/bare (target >= 0.8).
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import trio

from tests.benchmarks._load import hammer
from tests.benchmarks._procs import start_server, stop

ROUNDS = 3
SECONDS = 5.0
HERE = pathlib.Path(__file__).resolve().parent
ENGINE = str(pathlib.Path(sys.executable).parent / "svc-engine")


def main() -> None:
    if hasattr(os, "sched_setaffinity") and os.cpu_count() and os.cpu_count() > 1:
        os.sched_setaffinity(0, {1})
    with tempfile.TemporaryDirectory() as tmp:
        bare, bare_url, _ = start_server([sys.executable, str(HERE / "_bare_health_app.py")], cpu=0)
        engine, engine_url, _ = start_server(
            [ENGINE, "serve", "--port", "0", "--state-dir", tmp],
            cpu=0,
            env={"SVC_WORKSPACE": tmp, "XDG_CONFIG_HOME": tmp, "SVC_LOG_LEVEL": "warning"},
        )
        try:
            bare_rps, engine_rps = [], []
            for _ in range(ROUNDS):
                bare_rps.append(
                    trio.run(lambda: hammer(bare_url, "/global/health", seconds=SECONDS))
                )
                engine_rps.append(
                    trio.run(lambda: hammer(engine_url, "/global/health", seconds=SECONDS))
                )
        finally:
            stop(bare)
            stop(engine)
    b, e = max(bare_rps), max(engine_rps)
    print(
        f"bare quart-trio app: {b:,.0f} req/s   (rounds: "
        f"{', '.join(f'{x:,.0f}' for x in bare_rps)})"
    )
    print(
        f"engine:              {e:,.0f} req/s   (rounds: "
        f"{', '.join(f'{x:,.0f}' for x in engine_rps)})"
    )
    print(f"ratio engine/bare = {e / b:.2f}   (target >= 0.8)")


if __name__ == "__main__":
    main()
