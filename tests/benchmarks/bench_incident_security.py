"""Incident monitor security benchmark (a plain script, not collected by pytest).

    .venv/bin/python tests/benchmarks/bench_incident_security.py [--incidents 1000]

A real engine (SQLite state, HTTP on loopback) holds ``--incidents`` incidents, as many
delivery receipts, ``--decisions`` policy decisions and ``--automations`` automations v2.
Each security route (authority inventory, governance metrics, a full assessment report
with its persisted evidence) is timed over HTTP, median of ``--rounds``, against a plain
scan of the same rows through their repositories in the same run.
Target: each route within 250 ms; the ratio to the plain scan is reported.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import httpx
import trio

import svc
from svc.incidents.records import Incident, Post

S = "/incident-monitor/security"


async def seed(engine: svc.Engine, args: argparse.Namespace) -> None:
    service = engine.incidents
    now = engine.clock.now_ms()
    for i in range(args.incidents):
        incident = Incident(
            {
                "incident_id": f"inc-{i}",
                "fingerprint": f"fp{i:06d}",
                "status": "draft_created",
                "event_type": "job.failed",
                "title": f"Failure {i}",
                "risk_level": "high" if i % 5 == 0 else "medium",
                "risk_category": f"cat{i % 4}",
                "evidence_refs": [f"ref-{i}"],
                "occurrence_count": 1 + i % 3,
                "source_kind": "svc_runtime",
                "draft_id": f"draft-{i}",
                "created_at_ms": now - i * 1000,
                "updated_at_ms": now - i * 1000,
            }
        )
        await service.drafts.save_incident(incident)
        await service.posts.save(
            Post(
                {
                    "post_id": f"post-{i}",
                    "draft_id": f"draft-{i}",
                    "incident_id": f"inc-{i}",
                    "destination_id": "telemetry",
                    "idempotency_key": f"key-{i}",
                    "status": "posted" if i % 10 else "failed",
                    "external_id": f"ext-{i}",
                    "created_at_ms": now - i * 1000,
                    "updated_at_ms": now - i * 1000,
                }
            )
        )
    effects = ("allow", "allow", "allow", "deny", "approval_required")
    for i in range(args.decisions):
        effect = effects[i % len(effects)]
        service.decisions.record(
            domain="tool_policy",
            effect=effect,  # type: ignore[arg-type]
            subject=f"tool{i % 50}",
            approval_id=f"a{i}" if effect == "approval_required" else None,
        )
        if i % 1000 == 999:
            await service.decisions.flush()
    await service.decisions.flush()
    spec = {
        "status": "active",
        "schedule": {"type": "manual", "timezone": "UTC", "misfire_policy": {"type": "run_once"}},
        "agents": [
            {
                "agent_id": "worker",
                "display_name": "Worker",
                "tool_policy": {"allowlist": ["read", "grep"], "denylist": []},
                "mcp_policy": {"allowed_servers": []},
            }
        ],
        "flow": {
            "nodes": [{"node_id": "n", "agent_id": "worker", "objective": "work", "depends_on": []}]
        },
    }
    for i in range(args.automations):
        await engine.automations.create_v2({**spec, "name": f"auto-{i}"})


async def median(rounds: int, fn: Callable[[], Awaitable[object]]) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        settings = svc.Settings.load(
            {
                "state_dir": root / "state",
                "workspace": root,
                "port": 0,
                "global_config": root / "none.json",
            },
            environ={"HOME": str(root)},
        )
        async with (
            svc.open_engine(settings, serve_http=True) as engine,
            httpx.AsyncClient(base_url=engine.url or "", timeout=60) as client,
        ):
            await client.patch(
                "/config/incident-monitor",
                json={
                    "incident_monitor": {
                        "enabled": True,
                        "paused": True,
                        "repo": "acme/bench",
                        "destinations": [
                            {
                                "destination_id": "telemetry",
                                "name": "T",
                                "kind": "telemetry",
                                "telemetry_path": "t.jsonl",
                            }
                        ],
                        "default_destination_ids": ["telemetry"],
                    }
                },
            )
            await seed(engine, args)
            service = engine.incidents

            async def scan() -> None:
                await service.drafts.incidents(limit=args.incidents)
                await service.posts.page(limit=args.incidents)
                await service.decisions.repo.window(limit=args.decisions)
                await engine.automations.v2_repo.all()

            async def ok(response: Awaitable[httpx.Response]) -> None:
                r = await response
                assert r.status_code == 200, r.text

            plain = await median(args.rounds, scan)
            print(f"plain scan of the same rows: {plain * 1000:.1f} ms")
            for name, call in (
                ("authority inventory", lambda: ok(client.get(f"{S}/authority-inventory"))),
                ("governance metrics", lambda: ok(client.post(f"{S}/governance-metrics"))),
                ("assessment report", lambda: ok(client.post(f"{S}/assessment-report", json={}))),
            ):
                took = await median(args.rounds, call)
                verdict = "ok" if took <= 0.25 else "OVER"
                print(
                    f"{name}: {took * 1000:.1f} ms ({verdict}, target <= 250 ms), "
                    f"{took / plain:.2f}x the plain scan"
                )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--incidents", type=int, default=1000)
    parser.add_argument("--decisions", type=int, default=10_000)
    parser.add_argument("--automations", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    trio.run(main, parser.parse_args())
