"""Two engines on one PostgreSQL database, in one process: health, forwarding, one scheduler."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import trio

import svc
from svc.cluster import SharedCluster
from svc.store import Tx
from tests.helpers import text_prompt, wait_for_event

LEASE_MS = 1500


@asynccontextmanager
async def replica(
    make_settings: Callable[..., svc.Settings], url: str, tmp_path: Path, name: str
) -> AsyncIterator[tuple[svc.Engine, httpx.AsyncClient]]:
    settings = make_settings(store_url=url, state_dir=tmp_path / name, cluster_lease_ms=LEASE_MS)
    # The core engine (sessions, events): the automations domain's SQL runs on
    # PostgreSQL once its portable repositories land (branch automations-core).
    async with (
        svc.open_engine(settings, serve_http=True, components=[]) as engine,
        httpx.AsyncClient(base_url=engine.url or "", timeout=30.0) as client,
    ):
        yield engine, client


async def test_health_names_the_store_and_counts_live_replicas(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    async with replica(make_settings, pg_url, tmp_path, "a") as (a, client_a):
        one = (await client_a.get("/global/health")).json()
        assert one["store"] == "postgresql"
        assert one["replicaID"] == a.cluster.replica_id
        assert one["liveReplicas"] == 1
        async with replica(make_settings, pg_url, tmp_path, "b") as (_, client_b):
            two = (await client_b.get("/global/health")).json()
            assert two["liveReplicas"] == 2
            assert two["replicaID"] != one["replicaID"]
        # B stopped cleanly: it left at once.
        assert (await client_a.get("/global/health")).json()["liveReplicas"] == 1


async def test_sqlite_health_has_no_replica_fields(client: httpx.AsyncClient) -> None:
    body = (await client.get("/global/health")).json()
    if body["store"] == "sqlite":  # SVC_TEST_STORE=postgresql runs this on PostgreSQL
        assert "replicaID" not in body and "liveReplicas" not in body


async def test_a_session_owned_by_a_is_prompted_through_b_and_streams_to_a(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    async with (
        replica(make_settings, pg_url, tmp_path, "a") as (a, client_a),
        replica(make_settings, pg_url, tmp_path, "b") as (b, client_b),
    ):
        sid = (await client_a.post("/session", json={})).json()["id"]
        first = await client_a.post(
            f"/session/{sid}/prompt_async", params={"return": "run"}, json=text_prompt("one")
        )
        assert first.status_code == 202, first.text
        # A ran it, so A holds the session's lease; B's copy of the log sees it end.
        await wait_for_event(b, "session.run.finished", run_id=first.json()["runID"])
        assert isinstance(a.cluster, SharedCluster)
        assert (await a.cluster._repo.claim("session/", sid, "someone-else", LEASE_MS)) is not None

        received: list[dict[str, object]] = []
        async with client_a.stream("GET", "/event", params={"sessionID": sid}) as stream:

            async def read() -> None:
                # Stopped by cancelling a scope, so httpx's generators finish cleanly.
                buffer = ""
                with trio.CancelScope() as scope:
                    async for chunk in stream.aiter_text():
                        buffer += chunk
                        while "\n\n" in buffer:
                            block, buffer = buffer.split("\n\n", 1)
                            for line in block.splitlines():
                                if line.startswith("data: "):
                                    received.append(json.loads(line[6:]))
                        if any(
                            e["type"] == "session.run.finished"
                            and e["properties"].get("runID") == run_id  # type: ignore[union-attr]
                            for e in received
                        ):
                            scope.cancel()

            with trio.fail_after(30):
                response = await client_b.post(
                    f"/session/{sid}/prompt_async",
                    params={"return": "run"},
                    json=text_prompt("through b"),
                )
                assert response.status_code == 202, response.text
                run_id = response.json()["runID"]
                await read()
        texts = [
            e["properties"].get("delta")  # type: ignore[union-attr]
            for e in received
            if e["type"] == "message.part.updated"
        ]
        assert "through b" in "".join(t for t in texts if isinstance(t, str))
        seqs = [e["envelope"]["seq"] for e in received if "envelope" in e]  # type: ignore[index]
        assert seqs == sorted(seqs)
        # The run ran on A, the owner: B forwarded the prompt.
        assert a.sessions is not None
        assert a.actors.lookup("session/" + sid) is not None
        assert b.actors.lookup("session/" + sid) is None


async def test_one_replica_leads_and_another_takes_over_when_it_stops(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    running: list[str] = []
    began = {"a": trio.Event(), "b": trio.Event()}
    a_ended = trio.Event()

    def body(name: str) -> Callable[[], Awaitable[None]]:
        async def lead() -> None:
            running.append(name)
            began[name].set()
            try:
                await trio.sleep_forever()
            finally:
                running.remove(name)

        return lead

    async with (
        replica(make_settings, pg_url, tmp_path, "a") as (a, _),
        replica(make_settings, pg_url, tmp_path, "b") as (b, _),
        trio.open_nursery() as nursery,
    ):
        scope_a = trio.CancelScope()

        async def lead_a() -> None:
            with scope_a:
                await a.cluster.lead(body("a"))
            a_ended.set()

        nursery.start_soon(lead_a)
        with trio.fail_after(10):
            await began["a"].wait()
        nursery.start_soon(b.cluster.lead, body("b"))
        # b polls the lock meanwhile (every lease/3), and must not get it.
        await trio.sleep(LEASE_MS / 1000)
        assert running == ["a"] and a.cluster.leading and not b.cluster.leading
        scope_a.cancel()  # a stops leading: its connection, and the lock, go
        await a_ended.wait()
        with trio.fail_after(10):
            await began["b"].wait()
        assert running == ["b"] and b.cluster.leading and not a.cluster.leading
        nursery.cancel_scope.cancel()


async def test_a_lease_taken_over_stops_the_actor_here_and_the_next_ask_goes_to_the_owner(
    make_settings: Callable[..., svc.Settings], pg_url: str, tmp_path: Path
) -> None:
    async with replica(make_settings, pg_url, tmp_path, "a") as (a, client):
        sid = (await client.post("/session", json={})).json()["id"]
        ran = await client.post(f"/session/{sid}/prompt_sync", json=text_prompt("mine"))
        assert ran.json()["status"] == "completed"
        ref = a.actors.lookup("session/" + sid)
        assert ref is not None
        # Another replica took the lease over (this one was late renewing it).

        def steal(tx: Tx) -> None:
            tx.execute(
                "UPDATE cluster_leases SET replica_id = 'other', expires_at_ms = ? "
                "WHERE entity_id = ?",
                (2**62, sid),
            )

        await a.store.write(steal)
        assert isinstance(a.cluster, SharedCluster)
        await a.cluster.heartbeat()
        with trio.fail_after(10):
            await ref.wait_stopped()
        refused = await client.post(f"/session/{sid}/prompt_sync", json=text_prompt("again"))
        assert refused.status_code == 503
        assert refused.json()["code"] == "ENTITY_OWNED_ELSEWHERE"  # 'other' has no URL
