"""Legacy file handoff envelopes are imported at start-up, idempotently; bad ones are
quarantined."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

import svc
from tests.svc.goals.support import create_workflows


def write(root: Path, relative: str, content: Any) -> Path:
    path = root / "shared" / "handoffs" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def envelope(handoff_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "handoff_id": handoff_id,
        "source_automation_id": "wf-plan",
        "source_run_id": "r1",
        "target_automation_id": "wf-build",
        "artifact_type": "plan",
        "created_at_ms": 1,
        **extra,
    }


async def test_envelopes_import_once_and_bad_ones_are_quarantined(
    settings: svc.Settings, workspace: Path
) -> None:
    async with svc.open_engine(settings) as engine:
        await create_workflows(engine, "wf-plan", "wf-build")
    inbox = write(workspace, "inbox/h1.json", envelope("h1"))
    write(workspace, "inbox/copy-of-h1.json", envelope("h1"))  # an identical copy imports once
    write(workspace, "approved/2026/h2.json", envelope("h2"))
    write(workspace, "archived/h3.json", envelope("h3", consumed_by_run_id="r9", consumed_at_ms=5))
    write(workspace, "inbox/broken.json", "{not json")
    write(workspace, "inbox/escape.json", envelope("h4", content_path="../../etc/passwd"))
    write(
        workspace,
        "inbox/foreign.json",
        {**envelope("h5"), "source_automation_id": "elsewhere", "target_automation_id": "nowhere"},
    )
    write(workspace, "inbox/blank.json", envelope(" "))
    write(workspace, "inbox/zz-h1-edited.json", envelope("h1", artifact_type="notes"))
    before = {p: p.read_bytes() for p in (workspace / "shared").rglob("*.json")}

    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        assert engine.goals.legacy_report.to_wire() == {
            "handoffs": 3,
            "quarantined_handoffs": 5,
            "files": 9,
        }
        legacy = (await client.get("/goals/legacy/handoffs")).json()
        assert {h["handoff_id"]: h["status"] for h in legacy["handoffs"]} == {
            "h1": "inbox",
            "h2": "approved",
            "h3": "archived",
        }
        errors = {q["source_path"]: q["error"] for q in legacy["quarantined"]}
        assert errors["inbox/broken.json"].startswith("invalid legacy handoff:")
        assert "content_path" in errors["inbox/escape.json"]
        assert errors["inbox/foreign.json"].startswith("foreign legacy handoff")
        assert "handoff_id" in errors["inbox/blank.json"]
        assert errors["inbox/zz-h1-edited.json"].startswith("conflicting legacy handoff: h1")
        first_import = {h["handoff_id"]: h["imported_at_ms"] for h in legacy["handoffs"]}

    # The originals stay as they were; a second start changes nothing, a fixed file leaves
    # quarantine.
    assert {p: p.read_bytes() for p in (workspace / "shared").rglob("*.json")} == before
    write(workspace, "inbox/broken.json", envelope("h6"))
    inbox.unlink()
    async with svc.open_engine(settings) as engine:
        legacy = await engine.goals.legacy()
        assert {
            h["handoff_id"]: h["imported_at_ms"]
            for h in legacy["handoffs"]
            if h["handoff_id"] != "h6"
        } == first_import
        assert {h["handoff_id"] for h in legacy["handoffs"]} == {"h1", "h2", "h3", "h6"}
        assert "inbox/broken.json" not in {q["source_path"] for q in legacy["quarantined"]}
