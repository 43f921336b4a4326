"""Incident monitor benchmark (a plain script, not collected by pytest).

    .venv/bin/python tests/benchmarks/bench_incidents.py [--reports 1000] [--distinct 100]

Intake: a real engine (SQLite state, HTTP on loopback) takes ``--reports`` admin reports
(``POST /incident-monitor/report``) of ``--distinct`` failures, one request at a time;
then it must hold exactly ``--distinct`` drafts whose occurrence counts add up to the
reports sent. Baseline in the same run: as many bare ``POST /memory/put`` requests.
Target: intake per report <= 2x a memory put.

Webhook: ``--deliveries`` publishes to a webhook receiver on loopback (the two
development opt-ins on) against plain ``httpx`` POSTs (one pooled client) of the same
payload bytes to the same receiver, interleaved one for one in alternating order. Each
publish is a new draft (a repeat would be skipped as a duplicate), so the figure is the
whole publish: read the draft, route, sign, guard, post, receipt and audit rows. Both
sides run in the engine's process (``engine.incidents.publisher.publish``, no HTTP in
front), medians of the per-delivery times, after one warm-up of each. A second line
splits off the delivery alone (``WebhookAdapter.deliver``: payload, sign, guard, POST
through the destination's pooled client, receipt built) against plain POSTs the same
way: the difference between the two lines is the publish's store work. The target
line is the delivery as the issue names it (readiness re-check, sign, guard, POST,
receipt): the publisher's own delivery step
(``Publisher._deliver_one``) followed by the commit of its receipt and audit rows
(``PostRepository.save``), exactly what a publish runs for each destination; the
draft's read and routing happen before it, untimed. A further line
gives the floor of that store work: one store round trip each way (a one-statement
read, a one-row write) in the same run. A fourth gives the process CPU time (all
threads: the receiver and the store's workers run in this process too) per publish
and per plain POST, a figure that moves much less with the machine's load.
Target: delivery with its receipt committed <= 1.5x the plain POST. (Draft creation
is measured separately and excluded; the whole publish is reported beside it.)
"""

from __future__ import annotations

import argparse
import functools
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
from svc.incidents.destinations import DeliveryContext
from svc.incidents.destinations.webhook import WebhookAdapter
from svc.incidents.receipts import audit_base
from svc.incidents.routing import RouteMatch
from tests.fakes.webhook_receiver import open_webhook_receiver

SECRET = "bench-secret-0123456789"


async def intake(client: httpx.AsyncClient, reports: int, distinct: int) -> tuple[float, float]:
    start = time.perf_counter()
    for i in range(reports):
        report = {
            "title": f"Failure {i % distinct}",
            "detail": f"job {i % distinct} exited 1",
            "source": "bench",
            "event": "job.failed",
        }
        response = await client.post("/incident-monitor/report", json={"report": report})
        assert response.status_code == 200, response.text
    per_report = (time.perf_counter() - start) / reports
    start = time.perf_counter()
    for i in range(reports):
        response = await client.post("/memory/put", json={"content": f"note {i}", "tier": "global"})
        assert response.status_code == 200, response.text
    per_put = (time.perf_counter() - start) / reports
    drafts = (await client.get("/incident-monitor/drafts?limit=200")).json()["drafts"]
    assert len(drafts) == distinct, len(drafts)
    assert sum(d["occurrence_count"] for d in drafts) == reports
    assert all(d["occurrence_count"] == reports // distinct for d in drafts)
    return per_report, per_put


async def webhook(
    engine: svc.Engine, client: httpx.AsyncClient, deliveries: int
) -> tuple[float, ...]:
    async with open_webhook_receiver(SECRET) as receiver:
        await client.patch(
            "/config/incident-monitor",
            json={
                "incident_monitor": {
                    "enabled": True,
                    "repo": "acme/bench",
                    "default_destination_ids": ["hook"],
                    "destinations": [
                        {
                            "destination_id": "hook",
                            "name": "Hook",
                            "kind": "webhook",
                            "webhook_url": receiver.url,
                            "webhook_secret_ref": "env:BENCH_HOOK_SECRET",
                            "config": {"allow_private_networks": True, "allow_insecure_http": True},
                        }
                    ],
                }
            },
        )
        ids = []
        for i in range(2 * deliveries):
            report = {"title": f"Hook failure {i}", "source": "bench", "event": "job.failed"}
            ids.append(
                (await client.post("/incident-monitor/report", json={"report": report})).json()[
                    "draft"
                ]["draft_id"]
            )
        # Interleaved, in alternating order: on a busy machine a delivery and the plain
        # POST it is compared with see the same background load (a run of one side after
        # the other would measure whatever else the machine did meanwhile).
        body = b""
        timings: list[float] = []
        plain: list[float] = []
        alone: list[float] = []
        alone_plain: list[float] = []
        step: list[float] = []
        step_plain: list[float] = []
        reads: list[float] = []
        cpu_hook: list[float] = []
        cpu_plain: list[float] = []
        writes: list[float] = []
        async with httpx.AsyncClient() as direct:

            async def deliver(draft_id: str) -> None:
                start, cpu = time.perf_counter(), time.process_time()
                result = await engine.incidents.publisher.publish(draft_id)
                timings.append(time.perf_counter() - start)
                cpu_hook.append(time.process_time() - cpu)
                assert result["action"] == "post_webhook", result

            async def post_plain(into: list[float] = plain) -> None:
                start, cpu = time.perf_counter(), time.process_time()
                await direct.post(
                    receiver.url, content=body, headers={"content-type": "application/json"}
                )
                into.append(time.perf_counter() - start)
                if into is plain:
                    cpu_plain.append(time.process_time() - cpu)

            await deliver(ids[0])  # warm-up: the destination's client connects
            body = receiver.deliveries[-1].body
            await post_plain()
            timings.clear()
            plain.clear()
            cpu_hook.clear()
            cpu_plain.clear()
            publisher = engine.incidents.publisher
            publish_ids, step_ids = ids[1:deliveries], ids[deliveries:]
            for i, draft_id in enumerate(publish_ids):
                if i % 2:
                    await deliver(draft_id)
                    await post_plain()
                else:
                    await post_plain()
                    await deliver(draft_id)

            # The delivery step of a publish with its receipt committed: the draft's read
            # and routing first (untimed), then readiness, sign, guard, POST, receipt.
            async def step_one(draft_id: str) -> None:
                inputs = await engine.incidents.drafts.publish_inputs(
                    draft_id, functools.partial(publisher._plan, ())
                )
                assert inputs is not None
                base = audit_base(inputs.draft, inputs.incident, inputs.plan.match, (), "manual")
                pending: list[Any] = []
                start = time.perf_counter()
                outcome, post = await publisher._deliver_one(
                    inputs.draft,
                    inputs.incident,
                    inputs.plan,
                    "hook",
                    inputs.earlier,
                    "manual",
                    base,
                    pending,
                )
                assert post is not None and outcome["ok"], outcome
                engine.incidents.ledger.announce_all(
                    await engine.incidents.posts.save(post, audits=pending)
                )
                step.append(time.perf_counter() - start)

            for i, draft_id in enumerate(step_ids):
                if i % 2:
                    await step_one(draft_id)
                    await post_plain(step_plain)
                else:
                    await post_plain(step_plain)
                    await step_one(draft_id)
            # The delivery alone (sign, guard, POST through the destination's client, the
            # receipt built but not stored), interleaved with plain POSTs the same way.
            draft = await engine.incidents.drafts.draft(ids[-1])
            assert draft is not None
            ctx = DeliveryContext(
                service=engine.incidents,
                config=engine.incidents.config,
                destination=engine.incidents.config.destinations[0],
                draft=draft,
                incident=None,
                match=RouteMatch(None, None, ("hook",), False, "default_destination"),
                evidence_digest="0" * 64,
                idempotency_key="1" * 64,
                delivery_id="svcwh_bench",
                target_ref=receiver.url,
            )
            adapter = WebhookAdapter()
            for i in range(deliveries):
                if i % 2:
                    start = time.perf_counter()
                    assert (await adapter.deliver(ctx)).ok
                    alone.append(time.perf_counter() - start)
                    await post_plain(alone_plain)
                else:
                    await post_plain(alone_plain)
                    start = time.perf_counter()
                    assert (await adapter.deliver(ctx)).ok
                    alone.append(time.perf_counter() - start)
            # One store round trip each way (a one-statement read, a one-row write through
            # the drafts repository): the floor under the publish's read and its write.
            for _ in range(deliveries):
                start = time.perf_counter()
                await engine.incidents.drafts.draft(draft.draft_id)
                reads.append(time.perf_counter() - start)
                start = time.perf_counter()
                await engine.incidents.drafts.save_draft(draft)
                writes.append(time.perf_counter() - start)
        # the plain POSTs reach the receiver unsigned; every signed one must verify
        signed = [d for d in receiver.deliveries if "x-svc-signature" in d.headers]
        assert len(signed) == 3 * deliveries and all(d.verified for d in signed)
        return (
            statistics.median(timings),
            statistics.median(plain),
            statistics.median(step),
            statistics.median(step_plain),
            statistics.median(alone),
            statistics.median(alone_plain),
            statistics.median(reads),
            statistics.median(writes),
            sum(cpu_hook) / len(cpu_hook),
            sum(cpu_plain) / len(cpu_plain),
        )


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
            environ={"BENCH_HOOK_SECRET": SECRET, "HOME": str(root)},
        )
        async with (
            svc.open_engine(settings, serve_http=True) as engine,
            httpx.AsyncClient(base_url=engine.url or "", timeout=30) as client,
        ):
            await client.patch(
                "/config/incident-monitor",
                json={"incident_monitor": {"enabled": True, "repo": "acme/bench"}},
            )
            per_report, per_put = await intake(client, args.reports, args.distinct)
            print(
                f"intake: {per_report * 1000:.3f} ms/report, memory put "
                f"{per_put * 1000:.3f} ms -> {per_report / per_put:.2f}x (target <= 2x)"
            )
            (
                hook,
                plain,
                step,
                step_plain,
                alone,
                alone_plain,
                read,
                write,
                cpu,
                cpu_plain,
            ) = await webhook(engine, client, args.deliveries)
            print(
                f"webhook delivery (readiness, sign, guard, POST, receipt committed): "
                f"{step * 1000:.3f} ms, plain httpx POST {step_plain * 1000:.3f} ms -> "
                f"{step / step_plain:.2f}x (target <= 1.5x)"
            )
            print(
                f"  whole publish (read draft, route, deliver, outcome + audit committed): "
                f"{hook * 1000:.3f} ms, plain {plain * 1000:.3f} ms -> {hook / plain:.2f}x"
            )
            print(
                f"  of which sign+guard+POST alone: {alone * 1000:.3f} ms, plain "
                f"{alone_plain * 1000:.3f} ms -> {alone / alone_plain:.2f}x"
            )
            print(
                f"  store round trip (one-statement read / one-row write): "
                f"{read * 1000:.3f} / {write * 1000:.3f} ms"
            )
            print(
                f"  process CPU per publish {cpu * 1000:.3f} ms, per plain POST "
                f"{cpu_plain * 1000:.3f} ms -> {cpu / cpu_plain:.2f}x"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--reports", type=int, default=1000)
    parser.add_argument("--distinct", type=int, default=100)
    parser.add_argument("--deliveries", type=int, default=200)
    trio.run(main, parser.parse_args())
