"""The long fuzz run: at least 20,000 requests drawn from the OpenAPI document.

    .venv/bin/python tests/benchmarks/fuzz_api.py [--cases 20000] [--seed N]

Opens an engine in process (a temporary state directory and workspace, no
token, no model provider), reads its ``/openapi.json`` and sends every
operation cases drawn as ``tests/fuzzing.py`` describes, round after round
(each round a fresh seed) until ``--cases`` requests have been sent. Checks
every answer as the suite's bounded run does (no 5xx, the shared error body
with a stable code, documented statuses and schemas), and leaves out the
routes that act on the host itself as that run does (``acts_on_the_engine``). Prints the figures for
docs/performance.md and every failure; exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import tempfile
import time
from collections import Counter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

import svc
from svc import Settings
from tests.fuzzing import Report, acts_on_the_engine, fuzz

EXAMPLES_PER_ROUND = 25


async def known_ids(client: httpx.AsyncClient) -> dict[str, list[str]]:
    session = (await client.post("/session", json={"title": "fuzz"})).json()
    mission = (await client.post("/mission", json={"title": "t", "goal": "g"})).json()
    return {"session_id": [session["id"]], "mission_id": [mission["mission"]["mission_id"]]}


async def run(cases: int, seed: int) -> tuple[Report, int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "workspace").mkdir()
        settings = Settings.load(
            {
                "state_dir": root / "state",
                "workspace": root / "workspace",
                "port": 0,
                "global_config": root / "global-config.json",
            },
            environ={"HOME": str(root / "home"), "XDG_CONFIG_HOME": str(root / "config")},
        )
        async with (
            svc.open_engine(settings, serve_http=True) as engine,
            httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as client,
        ):
            document = (await client.get("/openapi.json")).json()
            known = await known_ids(client)

            def rounds() -> tuple[Report, int]:
                total = Report()
                rng = random.Random(seed)
                n = 0
                with httpx.Client(base_url=engine.url or "", timeout=60.0) as sync_client:
                    while total.cases < cases:
                        n += 1
                        report = fuzz(
                            sync_client,
                            document,
                            examples=EXAMPLES_PER_ROUND,
                            known=known,
                            seed=rng.randrange(2**32),
                            only=acts_on_the_engine,
                        )
                        total.cases += report.cases
                        total.statuses.update(report.statuses)
                        total.per_operation.update(report.per_operation)
                        total.failures.extend(report.failures)
                        print(f"round {n}: {total.cases:,} cases", file=sys.stderr)
                return total, n

            started = time.perf_counter()
            report, n_rounds = await trio.to_thread.run_sync(rounds)
            elapsed = time.perf_counter() - started
    return report, n_rounds, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20_000)
    args = parser.parse_args()
    report, n_rounds, elapsed = trio.run(run, args.cases, args.seed)
    by_class: Counter[str] = Counter()
    for status, count in report.statuses.items():
        by_class[f"{status // 100}xx"] += count
    print(f"operations fuzzed: {len(report.per_operation)}   rounds: {n_rounds}")
    print(
        f"cases: {report.cases:,}   in {elapsed:,.0f} s   ({report.cases / elapsed:,.0f} cases/s)"
    )
    print("status classes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(by_class.items())))
    print("statuses: " + ", ".join(f"{k}: {v:,}" for k, v in sorted(report.statuses.items())))
    print(f"failures: {len(report.failures)}")
    for failure in report.failures:
        print("  " + failure[:400])
    sys.exit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
