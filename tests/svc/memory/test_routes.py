"""Memory over HTTP: both body shapes of every route, listings, deletes, audit and import."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from tests.helpers import wait_for_event

PARTITION = {"org_id": "local", "workspace_id": "local", "project_id": "proj", "tier": "session"}


async def put(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/memory/put", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def search(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/memory/search", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def test_simple_put_then_search_ranks_and_scores(client: httpx.AsyncClient) -> None:
    best = await put(
        client,
        text="Rotate the deploy key monthly; the deploy key lives in the vault.",
        tags=["ops"],
    )
    other = await put(client, text="Deploy on Fridays only after review.")
    await put(client, text="Lunch is at noon.")
    assert best["stored"] is True and best["tier"] == "global" and best["audit_id"]
    assert best["partition_key"] == "local/local/-/global"
    found = await search(client, query="deploy key", limit=5)
    assert [r["id"] for r in found["results"]] == [best["id"], other["id"]]
    first, second = found["results"]
    assert 1 > first["score"] > second["score"] > 0
    assert first["text"] == first["content"] and first["tags"] == ["ops"]
    assert (
        found["scopes_used"] == ["global", "project", "session"] and found["blocked_scopes"] == []
    )
    tagged = await search(client, query="deploy", tags=["ops"])
    assert [r["id"] for r in tagged["results"]] == [best["id"]]


async def test_simple_put_infers_the_tier_from_the_ids(client: httpx.AsyncClient) -> None:
    sid = (await client.post("/session", json={"project_id": "alpha"})).json()["id"]
    in_session = await put(client, text="session fact", session_id=sid)
    assert in_session["tier"] == "session"
    assert in_session["memory"]["project_id"] == "alpha"  # the session's project
    assert (await put(client, text="project fact", projectID="alpha"))["tier"] == "project"
    assert (await put(client, content="global fact", kind="fact", source="agent"))["memory"][
        "source_type"
    ] == "agent"
    scoped = await search(client, query="fact", session_id=sid)
    assert sorted(r["tier"] for r in scoped["results"]) == ["global", "project", "session"]
    other = (await client.post("/session", json={})).json()["id"]
    assert sorted(
        r["tier"] for r in (await search(client, query="fact", session_id=other))["results"]
    ) == ["global"]


async def test_governed_put_and_search_follow_the_run_capability(client: httpx.AsyncClient) -> None:
    stored = await put(
        client,
        run_id="run-1",
        partition=PARTITION,
        kind="fact",
        content="The cache TTL is 5 minutes.",
        classification="internal",
    )
    assert stored["tier"] == "session" and stored["partition_key"] == "local/local/proj/session"
    denied = await client.post(
        "/memory/put",
        json={
            "run_id": "run-1",
            "partition": {**PARTITION, "tier": "project"},
            "kind": "fact",
            "content": "x",
            "classification": "internal",
        },
    )
    assert denied.status_code == 403 and denied.json()["code"] == "MEMORY_CAPABILITY_DENIED"
    capability = {
        "run_id": "run-1",
        "org_id": "local",
        "workspace_id": "local",
        "project_id": "proj",
        "memory": {
            "read_tiers": ["session", "project"],
            "write_tiers": ["session", "project"],
            "promote_targets": ["project"],
        },
        "expires_at": 9_999_999_999_999,
    }
    project = await put(
        client,
        run_id="run-1",
        partition={**PARTITION, "tier": "project"},
        kind="note",
        content="The cache lives in redis.",
        classification="internal",
        capability=capability,
    )
    assert project["tier"] == "project"
    found = await search(
        client, run_id="run-1", query="cache", partition=PARTITION, read_scopes=["session", "team"]
    )
    assert [r["id"] for r in found["results"]] == [stored["id"]]
    assert (
        found["scopes_used"] == ["session"]
        and found["blocked_scopes"] == ["team"]
        and found["audit_id"]
    )
    default_scopes = await search(client, run_id="run-1", query="cache", partition=PARTITION)
    assert {r["id"] for r in default_scopes["results"]} == {stored["id"], project["id"]}
    other_run = await search(
        client, run_id="run-2", query="cache", partition=PARTITION, read_scopes=["session"]
    )
    assert other_run["results"] == []


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        (
            {
                "run_id": "r",
                "partition": {**PARTITION, "tier": "team"},
                "kind": "fact",
                "content": "x",
                "classification": "internal",
            },
            403,
            "MEMORY_TIER_NOT_STORAGE_BACKED",
            None,
        ),
        (
            {
                "run_id": "r",
                "partition": PARTITION,
                "kind": "gossip",
                "content": "x",
                "classification": "internal",
            },
            400,
            "VALIDATION_FAILED",
            "kind",
        ),
        (
            {
                "run_id": "r",
                "partition": PARTITION,
                "kind": "fact",
                "content": "x",
                "classification": "secret",
            },
            400,
            "VALIDATION_FAILED",
            "classification",
        ),
        (
            {
                "run_id": "r",
                "partition": {"org_id": "local"},
                "kind": "fact",
                "content": "x",
                "classification": "internal",
            },
            400,
            "VALIDATION_FAILED",
            "partition.workspace_id",
        ),
        (
            {
                "run_id": "r",
                "partition": PARTITION,
                "kind": "fact",
                "content": "x",
                "classification": "internal",
                "capability": {"run_id": "other"},
            },
            403,
            "MEMORY_CAPABILITY_DENIED",
            "capability.run_id",
        ),
        (
            {
                "run_id": "r",
                "partition": PARTITION,
                "kind": "fact",
                "content": "x",
                "classification": "internal",
                "capability": {"expires_at": 1},
            },
            401,
            "MEMORY_CAPABILITY_EXPIRED",
            None,
        ),
        ({"text": "  "}, 400, "VALIDATION_FAILED", "text"),
        ({"text": "x", "tier": "session"}, 400, "VALIDATION_FAILED", "session_id"),
        ({"text": "x", "tier": "project"}, 400, "VALIDATION_FAILED", "project_id"),
        ({"text": "x", "tier": "team"}, 400, "VALIDATION_FAILED", "tier"),
        ({"text": 5}, 400, "VALIDATION_FAILED", "text"),
        ({"text": "x", "tags": "ops"}, 400, "VALIDATION_FAILED", "tags"),
    ],
)
async def test_bad_puts_are_refused_with_the_field(
    client: httpx.AsyncClient, body: dict, status: int, code: str, field: str | None
) -> None:
    response = await client.post("/memory/put", json=body)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code
    if field is not None:
        assert response.json()["field"] == field


async def test_search_needs_a_query(client: httpx.AsyncClient) -> None:
    response = await client.post("/memory/search", json={"limit": 3})
    assert response.status_code == 400 and response.json()["field"] == "query"


async def test_simple_promote_copies_one_tier_wider_and_scrubs(client: httpx.AsyncClient) -> None:
    sid = (await client.post("/session", json={"project_id": "alpha"})).json()["id"]
    note = await put(client, text="deploy with token=abc123secret to prod", session_id=sid)
    promoted = (
        await client.post("/memory/promote", json={"id": note["id"], "reason": "useful"})
    ).json()
    assert promoted["promoted"] is True and promoted["to_tier"] == "project"
    assert promoted["scrub_report"] == {"status": "redacted", "redactions": 1}
    copy = (await client.get(f"/memory/{promoted['new_memory_id']}")).json()
    assert copy["content"] == "deploy with token=[REDACTED] to prod"
    assert copy["project_id"] == "alpha" and copy["session_id"] is None
    assert copy["provenance"]["promoted_from"] == note["id"]
    to_global = (await client.post("/memory/promote", json={"memory_id": copy["id"]})).json()
    assert to_global["to_tier"] == "global"
    again = await client.post("/memory/promote", json={"id": to_global["new_memory_id"]})
    assert again.status_code == 409 and again.json()["code"] == "MEMORY_CONFLICT"
    missing = await client.post("/memory/promote", json={"id": "nope"})
    assert missing.status_code == 404 and missing.json()["code"] == "MEMORY_NOT_FOUND"


async def test_governed_promote_needs_a_target_and_a_review_when_required(
    client: httpx.AsyncClient,
) -> None:
    note = await put(
        client,
        run_id="run-1",
        partition=PARTITION,
        kind="fact",
        content="Cache TTL is 5 minutes.",
        classification="internal",
    )
    body = {
        "run_id": "run-1",
        "source_memory_id": note["id"],
        "from_tier": "session",
        "to_tier": "project",
        "partition": PARTITION,
        "reason": "team knowledge",
    }
    refused = await client.post("/memory/promote", json=body)
    assert refused.status_code == 403
    capability = {"memory": {"promote_targets": ["project"], "require_review_for_promote": True}}
    unreviewed = await client.post("/memory/promote", json={**body, "capability": capability})
    assert unreviewed.status_code == 403 and unreviewed.json()["field"] == "review"
    done = await client.post(
        "/memory/promote",
        json={
            **body,
            "capability": capability,
            "review": {"required": True, "reviewer_id": "lead"},
        },
    )
    assert done.status_code == 200 and done.json()["promoted"] is True
    assert done.json()["scrub_report"]["status"] == "passed"
    wrong_tier = await client.post(
        "/memory/promote",
        json={
            **body,
            "from_tier": "project",
            "capability": capability,
            "review": {"reviewer_id": "lead"},
        },
    )
    assert wrong_tier.status_code == 409


async def test_restricted_and_private_key_records_are_not_promoted(
    client: httpx.AsyncClient,
) -> None:
    restricted = await put(client, text="salary bands", project_id="p", classification="restricted")
    body = (await client.post("/memory/promote", json={"id": restricted["id"]})).json()
    assert body["promoted"] is False and body["scrub_report"]["status"] == "blocked"
    key = await put(
        client,
        text="-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
        project_id="p",
    )
    body = (await client.post("/memory/promote", json={"id": key["id"]})).json()
    assert (
        body["promoted"] is False and body["scrub_report"]["block_reason"] == "private key material"
    )


async def test_demote_hides_a_record_from_search(client: httpx.AsyncClient) -> None:
    note = await put(client, text="obsolete procedure for backups")
    assert len((await search(client, query="backups"))["results"]) == 1
    response = await client.post("/memory/demote", json={"id": note["id"], "run_id": "run-9"})
    assert (
        response.status_code == 200
        and response.json()["ok"] is True
        and response.json()["audit_id"]
    )
    assert (await search(client, query="backups"))["results"] == []
    listed = (await client.get("/memory")).json()["items"][0]
    assert listed["demoted"] is True and listed["visibility"] == "private"
    assert (await client.post("/memory/demote", json={"id": "nope"})).status_code == 404


async def test_list_filters_pages_and_counts(client: httpx.AsyncClient) -> None:
    sid = (await client.post("/session", json={"project_id": "alpha"})).json()["id"]
    for i in range(3):
        await put(client, text=f"global note {i}", tags=["g"])
    await put(client, text="alpha note", project_id="alpha")
    await put(client, text="session note", session_id=sid)
    await put(client, text="beta note", project_id="beta")
    body = (await client.get("/memory", params={"limit": 2})).json()
    assert (body["count"], body["total"], body["limit"], body["offset"]) == (2, 6, 2, 0)
    assert body["items"][0]["text"] == "beta note"
    scoped = (await client.get("/memory", params={"session_id": sid})).json()
    assert sorted(i["text"] for i in scoped["items"]) == [
        "alpha note",
        "global note 0",
        "global note 1",
        "global note 2",
        "session note",
    ]
    assert (await client.get("/memory", params={"project_id": "beta", "tier": "project"})).json()[
        "total"
    ] == 1
    assert (await client.get("/memory", params={"tags": "g", "q": "note 1"})).json()["total"] == 3
    assert (await client.get("/memory", params={"tier": "session"})).json()["total"] == 1
    bad = await client.get("/memory", params={"tier": "team"})
    assert bad.status_code == 400 and bad.json()["field"] == "tier"
    assert (await client.get("/memory", params={"limit": 5000})).json()["limit"] == 1000


async def test_delete_removes_a_record_and_respects_the_project_filter(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    note = await put(client, text="temporary", project_id="alpha")
    wrong = await client.delete(f"/memory/{note['id']}", params={"project_id": "beta"})
    assert wrong.status_code == 404
    response = await client.delete(f"/memory/{note['id']}", params={"project_id": "alpha"})
    assert (
        response.status_code == 200
        and response.json()["ok"] is True
        and response.json()["audit_id"]
    )
    event = await wait_for_event(engine, "memory.deleted")
    assert event.properties["id"] == note["id"] and event.topic == "memory"
    assert (await client.get(f"/memory/{note['id']}")).status_code == 404
    assert (await client.delete(f"/memory/{note['id']}")).status_code == 404


async def test_audit_lists_what_happened(client: httpx.AsyncClient) -> None:
    note = await put(
        client,
        run_id="run-7",
        partition=PARTITION,
        kind="note",
        content="audited",
        classification="internal",
    )
    await client.post("/memory/demote", json={"id": note["id"], "run_id": "run-7"})
    body = (await client.get("/memory/audit", params={"run_id": "run-7"})).json()
    assert [e["action"] for e in body["events"]] == ["demote", "put"]
    assert body["entries"] == body["events"] and body["count"] == 2
    assert body["events"][1]["memory_id"] == note["id"]


async def test_memory_events_do_not_join_session_streams(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = (await client.post("/session", json={})).json()["id"]
    note = await put(client, text="quiet", session_id=sid)
    event = await wait_for_event(
        engine, "memory.updated", where=lambda e: e.properties.get("id") == note["id"]
    )
    assert event.session_id is None and event.run_id is None
    assert event.properties["scope"] == {"session": sid, "project": None}


async def test_import_over_http_takes_both_body_shapes(
    client: httpx.AsyncClient, engine: svc.Engine, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Runbook\n\nRestart the worker with systemctl.")
    (notes / "b.txt").write_text("Billing closes on the 25th.")
    response = await client.post(
        "/memory/import",
        json={
            "source": {"kind": "path", "path": str(notes)},
            "format": "directory",
            "tier": "project",
            "project_id": "ops",
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["tier"] == "project" and body["project_id"] == "ops"
    assert body["source"] == {"kind": "path", "path": str(notes)} and body["format"] == "directory"
    assert (body["discovered_files"], body["indexed_files"], body["chunks_created"]) == (2, 2, 2)
    simple = (
        await client.post("/memory/import", json={"path": str(notes), "project_id": "ops"})
    ).json()
    assert simple["tier"] == "project" and simple["skipped_files"] == 2
    found = await search(client, query="systemctl worker", project_id="ops")
    assert found["results"][0]["metadata"]["path"] == "a.md"
    completed = await wait_for_event(engine, "memory.import.completed")
    assert completed.properties["indexed_files"] == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"source": {"kind": "url", "path": "/x"}}, "source.kind"),
        ({"format": "directory"}, "source.path"),
        ({"path": "/tmp", "tier": "project"}, "project_id"),
        ({"path": "/tmp", "tier": "session"}, "session_id"),
        ({"path": "/tmp", "format": "zip"}, "format"),
        ({"path": "/definitely/not/here"}, "path"),
    ],
)
async def test_bad_imports_are_400_naming_the_field(
    client: httpx.AsyncClient, body: dict, field: str
) -> None:
    response = await client.post("/memory/import", json=body)
    assert response.status_code == 400, response.text
    assert response.json()["field"] == field


async def test_an_empty_import_is_a_clear_400(client: httpx.AsyncClient, tmp_path: Path) -> None:
    response = await client.post("/memory/import", json={"path": str(tmp_path)})
    assert response.status_code == 400
    assert response.json()["code"] == "MEMORY_IMPORT_FAILED"
    assert "no importable files found for format=directory" in response.json()["error"]


async def test_an_http_import_reports_its_progress_as_events(
    client: httpx.AsyncClient, engine: svc.Engine, tmp_path: Path
) -> None:
    from svc.events import EventFilter

    notes = tmp_path / "many"
    notes.mkdir()
    for i in range(150):
        (notes / f"note-{i:03}.md").write_text(f"# Note {i}\n\nFact number {i}.")
    response = await client.post("/memory/import", json={"path": str(notes)})
    assert response.status_code == 200 and response.json()["indexed_files"] == 150
    await engine.events.flush()
    events = await engine.events.replay(EventFilter(topic="memory"), limit=1_000)
    kinds = [e.type for e in events if e.type.startswith("memory.import.")]
    assert kinds[0] == "memory.import.started" and kinds[-1] == "memory.import.completed"
    progress = [e.properties for e in events if e.type == "memory.import.progress"]
    # One event per batch of files, counting up to the total.
    assert [(p["done"], p["total"]) for p in progress] == [(64, 150), (128, 150), (150, 150)]
    assert all(p["path"] == str(notes) for p in progress)
