"""Triage by a scripted model, and a restart in the middle of a triage run."""

from __future__ import annotations

from typing import Any

import httpx
import trio

import svc
from svc import Settings
from tests.fakes.turns import Turn
from tests.svc.automations.support import settled

from .support import configure, report

STEP_REPLIES = (
    "The export job failed: the API answered 401 at 00:00:03.",
    "The export token expired at midnight; the job reads it once at start.",
    "Confirmed: the token's expiry is 00:00:00.\n- run the export after midnight\n- see 401",
    "# Refresh the export token before each batch\nRead the token per batch in export.py.",
)


def user_text(request: Any) -> str:
    return "\n".join(
        str(m.get("content") or "") for m in request.body["messages"] if m.get("role") == "user"
    )


async def test_triage_runs_the_four_steps_by_a_scripted_model_into_the_summary(
    model_settings: Settings, fake_model: Any
) -> None:
    for reply in STEP_REPLIES:
        fake_model.enqueue(Turn.reply(reply))
    async with (
        svc.open_engine(model_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        await configure(client)
        draft = (await client.post("/incident-monitor/report", json={"report": report()})).json()
        draft_id = draft["draft"]["draft_id"]
        started = await client.post(f"/incident-monitor/drafts/{draft_id}/triage-run")
        assert started.status_code == 200, started.text
        run_id = started.json()["draft"]["triage_run_id"]
        assert run_id.startswith("automation-v2-incident-monitor-triage-")
        run = await settled(engine, run_id)
        assert run.status == "completed"
        assert list(run.node_outputs) == ["inspect", "research", "validate", "propose_fix"]
        # each step ran as its own model call, in order, handed the step before it
        prompts = [user_text(r) for r in fake_model.requests]
        steps = ["Step: inspect", "Step: research", "Step: validate", "Step: propose_fix"]
        assert [next(s for s in steps if s in p) for p in prompts] == steps
        assert STEP_REPLIES[0] in prompts[1] and STEP_REPLIES[2] in prompts[3]
        assert "Nightly export failed" in prompts[0]
        summary = await client.post(f"/incident-monitor/drafts/{draft_id}/triage-summary")
        assert summary.status_code == 200, summary.text
        body = summary.json()["triage_summary"]
        assert "401" in body["what_happened"]
        assert "token expired" in body["why_it_likely_happened"]
        assert "run the export after midnight" in body["verification_steps"]
        assert body["suggested_title"] == "Refresh the export token before each batch"
        assert set(body["nodes"]) == {"inspect", "research", "validate", "propose_fix"}
        issue = (await client.post(f"/incident-monitor/drafts/{draft_id}/issue-draft")).json()
        assert issue["issue_draft"]["title"] == "Refresh the export token before each batch"
        for heading in ("What happened", "Why it likely happened", "Recommended fix"):
            assert f"## {heading}" in issue["issue_draft"]["body"]


async def test_a_triage_run_past_its_deadline_is_cancelled_and_marked_timed_out(
    model_settings: Settings, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.enqueue(Turn.reply("still inspecting", gate=gate))
    async with (
        svc.open_engine(model_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        await configure(client, triage_timeout_ms=60_000)
        draft = (await client.post("/incident-monitor/report", json={"report": report()})).json()
        draft_id = draft["draft"]["draft_id"]
        started = (await client.post(f"/incident-monitor/drafts/{draft_id}/triage-run")).json()
        run_id = started["draft"]["triage_run_id"]
        deadline = started["draft"]["triage_deadline_at_ms"]
        assert deadline == started["draft"]["triage_started_at_ms"] + 60_000
        await fake_model.wait_for_requests(1)  # the first step is running, held by the gate
        await engine.incidents.recover_triage()  # before the deadline: left alone
        running = await engine.automations.get_v2_run(run_id)
        assert running is not None and not running.terminal
        # The deadline passes (the stored deadline moved back instead of waiting a minute).
        stored = await engine.incidents.drafts.draft(draft_id)
        assert stored is not None
        await engine.incidents.drafts.save_draft(
            stored.evolve(triage_deadline_at_ms=engine.clock.now_ms() - 1)
        )
        await engine.incidents.recover_triage()
        run = await settled(engine, run_id)
        assert run.status == "cancelled"
        timed_out = (await client.get(f"/incident-monitor/drafts/{draft_id}")).json()["draft"]
        assert timed_out["triage_status"] == "timed_out"
        assert timed_out["github_status"] == "triage_timed_out"
        gate.set()
        # a new triage run may be started for it afterwards
        fake_model.enqueue(*(Turn.reply(r) for r in STEP_REPLIES))
        again = (await client.post(f"/incident-monitor/drafts/{draft_id}/triage-run")).json()
        assert again["draft"]["triage_run_id"] != run_id
        assert "triage_status" not in again["draft"]  # the new run is not "timed out"
        assert (await settled(engine, again["draft"]["triage_run_id"])).status == "completed"
        await engine.incidents.recover_triage()  # the monitor's tick collects the new run
        done = (await client.get(f"/incident-monitor/drafts/{draft_id}")).json()["draft"]
        assert done["triage_status"] == "completed"
        assert done["triage_summary"]["run_id"] == again["draft"]["triage_run_id"]


async def test_restart_in_the_middle_of_a_triage_run_loses_nothing_committed(
    model_settings: Settings, fake_model: Any
) -> None:
    gate = trio.Event()
    fake_model.enqueue(Turn.reply("held", gate=gate))
    async with (
        svc.open_engine(model_settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        await configure(client)
        draft = (await client.post("/incident-monitor/report", json={"report": report()})).json()
        draft_id = draft["draft"]["draft_id"]
        started = await client.post(f"/incident-monitor/drafts/{draft_id}/triage-run")
        run_id = started.json()["draft"]["triage_run_id"]
    gate.set()
    fake_model.enqueue(*(Turn.reply(r) for r in STEP_REPLIES))
    async with svc.open_engine(model_settings, serve_http=True) as engine:
        stored = await engine.incidents.drafts.draft(draft_id)
        assert stored is not None and stored.text("triage_run_id") == run_id
        assert stored.get("occurrence_count") == 1
        run = await engine.automations.get_v2_run(run_id)
        assert run is not None
        await engine.incidents.recover_triage()
        again = await engine.incidents.drafts.draft(draft_id)
        assert again is not None and again.text("triage_run_id") == run_id
