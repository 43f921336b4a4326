"""Bounded resources: concurrent runs, event streams per client, body size, tool output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
import trio

import svc
from svc import Settings
from svc.limits import ClientStreams, RunLimitReached, Slots, StreamLimitReached
from tests.fakes.turns import Turn
from tests.helpers import text_prompt, wait_for_event


def test_slots_refuse_past_the_limit_and_free_on_release() -> None:
    slots = Slots(2)
    slots.acquire()
    slots.acquire()
    with pytest.raises(RunLimitReached) as info:
        slots.acquire()
    assert info.value.status == 429
    assert info.value.to_body()["retryAfterMs"] == 2000
    slots.release()
    slots.acquire()
    assert slots.in_use == 2


def test_client_streams_are_counted_per_client() -> None:
    streams = ClientStreams(1)
    with streams.hold("10.0.0.1"):
        with pytest.raises(StreamLimitReached):
            streams.acquire("10.0.0.1")
        with streams.hold("10.0.0.2"):
            assert streams.total == 2
    assert streams.total == 0


@pytest.fixture
def settings(make_settings: Callable[..., Settings], fake_model: Any) -> Settings:
    return make_settings(
        default_provider="openai",
        providers={"openai": {"url": fake_model.url, "api_key": "sk-test", "default_model": "m"}},
        max_concurrent_runs=1,
        max_sse_streams_per_client=2,
        max_body_bytes=4096,
    )


async def test_runs_past_the_engine_limit_get_429_with_retry_after(
    client: httpx.AsyncClient, engine: svc.Engine, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.enqueue(Turn.reply("held answer", gate=gate, gate_after=1))
    first = (await client.post("/session", json={})).json()["id"]
    second = (await client.post("/session", json={})).json()["id"]
    started = await client.post(
        f"/session/{first}/prompt_async", params={"return": "run"}, json=text_prompt("one")
    )
    run_id = started.json()["runID"]
    refused = await client.post(f"/session/{second}/prompt_async", json=text_prompt("two"))
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "2"
    assert refused.json()["code"] == "RUN_LIMIT_REACHED"
    assert refused.json()["retryable"] is True
    # Nothing was recorded for the refused prompt.
    assert (await client.get(f"/session/{second}/message")).json() == []
    gate.set()
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
    assert engine.run_slots.in_use == 0
    again = await client.post(f"/session/{second}/prompt_async", json=text_prompt("two"))
    assert again.status_code == 204


async def test_event_streams_per_client_are_bounded(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    base = engine.events.subscriber_count  # the engine's own subscribers
    async with (
        client.stream("GET", "/event") as one,
        client.stream("GET", "/global/event") as two,
    ):
        assert one.status_code == two.status_code == 200
        third = await client.get("/event")
        assert third.status_code == 429
        assert third.headers["retry-after"] == "5"
        assert third.json()["code"] == "STREAM_LIMIT_REACHED"
    # Closed streams give their slots back (before their subscriptions end).
    with trio.fail_after(30):
        await engine.events.wait_for_subscribers(lambda n: n == base)
    assert engine.streams.total == 0
    async with client.stream("GET", "/event") as again:
        assert again.status_code == 200


async def test_request_bodies_past_the_configured_size_get_413(
    client: httpx.AsyncClient,
) -> None:
    big = {"title": "x" * 5000}
    response = await client.post("/session", json=big)
    assert response.status_code == 413
    assert (await client.post("/session", json={"title": "ok"})).status_code == 200
