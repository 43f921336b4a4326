"""Property-based requests drawn from the OpenAPI document, against a live engine.

A bounded run (a few cases per operation, fixed seeds, so the same cases every
time): no 5xx, every 4xx in the shared error shape with a stable code, every
success a documented status and media type, a JSON body matching its schema. Routes with
effects on the host itself are left out (``acts_on_the_engine``). The long run
is ``tests/benchmarks/fuzz_api.py``; figures in docs/performance.md.
"""

from __future__ import annotations

from typing import Any

import httpx
import trio

import svc
from tests.fuzzing import acts_on_the_engine, fuzz

EXAMPLES_PER_OPERATION = 6


async def known_ids(client: httpx.AsyncClient) -> dict[str, list[str]]:
    """A few real resources, so cases reach past the 404 of an unknown id."""
    session = (await client.post("/session", json={"title": "fuzz"})).json()
    mission = (await client.post("/mission", json={"title": "t", "goal": "g"})).json()
    return {
        "session_id": [session["id"]],
        "mission_id": [mission["mission"]["mission_id"]],
    }


async def test_every_operation_survives_generated_requests(make_settings: Any) -> None:
    async with (
        svc.open_engine(make_settings(), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as client,
    ):
        document = (await client.get("/openapi.json")).json()
        known = await known_ids(client)

        def run() -> Any:
            with httpx.Client(base_url=engine.url or "", timeout=30.0) as sync_client:
                return fuzz(
                    sync_client,
                    document,
                    examples=EXAMPLES_PER_OPERATION,
                    known=known,
                    only=acts_on_the_engine,
                )

        report = await trio.to_thread.run_sync(run)
    assert len(report.per_operation) > 150 and report.cases > 3 * len(report.per_operation)
    assert not report.failures, "\n".join(report.failures[:40])
