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


async def test_triage_run_by_a_scripted_model_becomes_the_summary(
    model_settings: Settings, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.reply("The export token expired at midnight; rotate it."))
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
        summary = await client.post(f"/incident-monitor/drafts/{draft_id}/triage-summary")
        assert summary.status_code == 200, summary.text
        assert "token expired" in summary.json()["triage_summary"]["what_happened"]
        issue = await client.post(f"/incident-monitor/drafts/{draft_id}/issue-draft")
        assert "What happened" in issue.json()["issue_draft"]["body"]


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
    fake_model.enqueue(Turn.reply("after restart"))
    async with svc.open_engine(model_settings, serve_http=True) as engine:
        stored = await engine.incidents.drafts.draft(draft_id)
        assert stored is not None and stored.text("triage_run_id") == run_id
        assert stored.get("occurrence_count") == 1
        run = await engine.automations.get_v2_run(run_id)
        assert run is not None
        await engine.incidents.recover_triage()
        again = await engine.incidents.drafts.draft(draft_id)
        assert again is not None and again.text("triage_run_id") == run_id
