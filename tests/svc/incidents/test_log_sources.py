"""Log sources tailed through the monitor's poll: offsets, rotation, truncation, cooldown."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx

import svc

from .support import SECRET, configure, project


async def _setup(client: httpx.AsyncClient, root: Path, **source: object) -> None:
    await configure(
        client,
        monitored_projects=[
            project(
                workspace_root=str(root),
                log_sources=[
                    {
                        "source_id": "app",
                        "path": "logs/app.log",
                        "format": "auto",
                        "fingerprint_cooldown_ms": 0,
                        **source,
                    }
                ],
            )
        ],
    )


async def poll(engine: svc.Engine) -> None:
    config = engine.incidents.config
    from svc.incidents.log_tailer import poll_source

    p = config.monitored_projects[0]
    await poll_source(engine.incidents, p, p.log_sources[0])


async def test_log_file_tailed_rotated_and_truncated(
    engine: svc.Engine, client: httpx.AsyncClient, workspace: Path
) -> None:
    from svc.logs import register_secret

    register_secret(SECRET)
    log = workspace / "logs" / "app.log"
    log.parent.mkdir()
    log.write_text("2026-01-01 old ERROR before start\n")
    await _setup(client, workspace)
    await poll(engine)  # start_position=end: positioned, nothing read
    assert (await client.get("/incident-monitor/drafts")).json()["count"] == 0
    with log.open("a") as f:
        f.write("2026-01-02 INFO fine\n")
        f.write(f"2026-01-02 ERROR payment failed password={SECRET}\n")
        f.write("  at billing.charge (charge.py:10)\n")
        f.write(json.dumps({"level": "error", "message": "db down", "event": "db.down"}) + "\n")
        f.write("2026-01-02 ERROR partial")  # no newline yet: kept for the next poll
    await poll(engine)
    drafts = (await client.get("/incident-monitor/drafts")).json()["drafts"]
    assert sorted(d["title"] for d in drafts) == [
        "Billing reported 2026-01-02 ERROR payment failed password=[redacted]",
        "Billing reported db down",
    ]
    assert all(SECRET not in json.dumps(d) for d in drafts)
    state = await engine.incidents.log_states.get("billing", "app")
    assert state is not None and state.partial_line == "2026-01-02 ERROR partial"
    # rotation: a new file at the path (new inode) is read from its start
    os.rename(log, log.with_suffix(".1"))
    log.write_text("2026-01-03 ERROR after rotation\n")
    await poll(engine)
    titles = [d["title"] for d in (await client.get("/incident-monitor/drafts")).json()["drafts"]]
    assert "Billing reported 2026-01-03 ERROR after rotation" in titles
    # truncation: shorter than the offset, read from 0 again
    size_before = (await engine.incidents.log_states.get("billing", "app")).offset  # type: ignore[union-attr]
    with log.open("w") as f:
        f.write("x\n")
    assert log.stat().st_size < size_before
    await poll(engine)  # shorter than the offset: back to 0
    with log.open("a") as f:
        f.write("2026-01-04 ERROR after truncation\n")
    await poll(engine)
    titles = [d["title"] for d in (await client.get("/incident-monitor/drafts")).json()["drafts"]]
    assert "Billing reported 2026-01-04 ERROR after truncation" in titles
    # the same failure again counts an occurrence on the same draft
    with log.open("a") as f:
        f.write("2026-01-04 ERROR after truncation\n")
    await poll(engine)
    drafts = (await client.get("/incident-monitor/drafts")).json()["drafts"]
    again = [d for d in drafts if d["title"].endswith("after truncation")]
    assert len(again) == 1 and again[0]["occurrence_count"] == 2
    reset = await client.post("/incident-monitor/log-sources/billing/app/reset-offset")
    assert reset.json()["state"]["offset"] == 0
    replay = await client.post("/incident-monitor/log-sources/billing/app/replay-latest")
    assert replay.status_code == 200, replay.text
    missing = await client.post("/incident-monitor/log-sources/billing/nope/reset-offset")
    assert missing.json()["code"] == "INCIDENT_MONITOR_LOG_SOURCE_NOT_FOUND"


async def test_candidates_per_poll_are_bounded(
    engine: svc.Engine, client: httpx.AsyncClient, workspace: Path
) -> None:
    log = workspace / "logs" / "app.log"
    log.parent.mkdir()
    log.write_text("".join(f"2026-01-01 ERROR failure number{chr(97 + i)}\n" for i in range(5)))
    await _setup(client, workspace, start_position="beginning", max_candidates_per_poll=2)
    await poll(engine)
    assert (await client.get("/incident-monitor/drafts")).json()["count"] == 2
    await poll(engine)
    await poll(engine)
    assert (await client.get("/incident-monitor/drafts")).json()["count"] == 5
