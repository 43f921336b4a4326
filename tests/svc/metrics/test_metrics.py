"""GET /metrics: the Prometheus text format, fed by the engine's live state and its events."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import trio
import trio.testing
from prometheus_client.parser import text_string_to_metric_families

import svc
from svc import Settings
from svc.metrics.queues import runs_queued
from tests.fakes.turns import FakeToolCall, Turn
from tests.helpers import text_prompt, wait_for_event


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


@pytest.fixture
def settings(make_settings: Callable[..., Settings], fake_model: Any) -> Settings:
    return make_settings(
        default_provider="openai",
        providers={"openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "m"}},
        metrics_enabled=True,
        api_token="metrics-test-token-0001",
    )


@pytest.fixture
async def authed(engine: svc.Engine) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": "Bearer metrics-test-token-0001"}
    async with httpx.AsyncClient(base_url=engine.url or "", headers=headers) as c:
        yield c


async def run(client: httpx.AsyncClient, engine: svc.Engine, text: str) -> str:
    sid = (await client.post("/session", json={})).json()["id"]
    reply = await client.post(
        f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt(text)
    )
    run_id: str = reply.json()["runID"]
    finished = await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert engine.metrics is not None
    await engine.metrics.wait_recorded(finished.seq)
    return run_id


async def test_metrics_report_runs_tools_errors_and_live_state(
    authed: httpx.AsyncClient, engine: svc.Engine, fake_model: Any, workspace: Any
) -> None:
    (workspace / "data.txt").write_text("hello")
    fake_model.enqueue(
        Turn.calls(FakeToolCall("read", {"path": "data.txt"}, id="c1")), Turn.reply("done")
    )
    await run(authed, engine, "read it")
    fake_model.enqueue(Turn.failure(401, "bad key"))
    await run(authed, engine, "fail")
    response = await authed.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    found = samples(response.text)
    assert found[("svc_run_duration_seconds_count", (("status", "completed"),))] == 1
    assert found[("svc_run_duration_seconds_count", (("status", "error"),))] == 1
    assert found[("svc_tool_calls_total", (("decision", "completed"), ("tool", "read")))] == 1
    errors = [k for k in found if k[0] == "svc_provider_errors_total"]
    assert errors and dict(errors[0][1])["provider"] == "openai"
    assert found[("svc_runs_active", ())] == 0
    assert found[("svc_event_append_seconds_count", ())] > 0
    assert found[("svc_sse_subscribers", ())] >= 1  # the recorder itself
    # SQLite's page caches live in the engine's process; PostgreSQL's in its server.
    expected_memory = engine.store.memory_bytes()
    if engine.store.kind == "sqlite":
        assert found[("svc_store_memory_bytes", ())] > 0 and expected_memory > 0
    else:
        assert found[("svc_store_memory_bytes", ())] == expected_memory == 0
    for name in ("svc_runs_queued", "svc_scheduler_tick_seconds", "svc_mcp_call_seconds"):
        assert any(key[0].startswith(name) for key in found) or name in response.text


async def test_metrics_need_the_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/metrics")
    assert response.status_code == 401


async def test_metrics_are_off_by_default(make_settings: Callable[..., Settings]) -> None:
    async with (
        svc.open_engine(make_settings(), serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        assert engine.metrics is None
        response = await client.get("/metrics")
    assert response.status_code == 404
    assert response.json()["code"] == "METRICS_DISABLED"


async def test_runs_queued_counts_runs_waiting_for_a_pool_slot(
    authed: httpx.AsyncClient, engine: svc.Engine
) -> None:
    routine = {
        "routine_id": "queued-digest",
        "name": "Digest",
        "schedule": {"interval_seconds": {"seconds": 3600}},
        "entrypoint": "mission.default",
        "args": {"prompt": "Summarise the notes"},
        "allowed_tools": ["read"],
        "output_targets": [],
    }
    assert (await authed.post("/routines", json=routine)).status_code == 200
    limiter = engine.automations.routine_pool.limiter
    # Every slot held, as by runs executing: the next routine run waits in the pool.
    holders = [object() for _ in range(int(limiter.total_tokens))]
    for holder in holders:
        limiter.acquire_on_behalf_of_nowait(holder)
    try:
        started = await authed.post("/routines/queued-digest/run_now", json={})
        assert started.status_code == 200, started.text
        with trio.fail_after(10):
            while runs_queued(engine) < 1:
                await trio.testing.wait_all_tasks_blocked()
        found = samples((await authed.get("/metrics")).text)
        assert found[("svc_runs_queued", ())] == 1
    finally:
        for holder in holders:
            limiter.release_on_behalf_of(holder)
    run_id = started.json()["runID"]
    await wait_for_event(
        engine, "run.completed", run_id=run_id, where=lambda e: e.topic == "automations"
    )
    found = samples((await authed.get("/metrics")).text)
    assert found[("svc_runs_queued", ())] == 0
