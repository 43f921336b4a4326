"""Memory as a context tree, in the request shapes clients send: resolve a URI, walk the
tree, generate a node's layers, distill a conversation; and the import counts they parse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx


async def put(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/memory/put", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def test_tree_groups_records_by_tier_and_scope(client: httpx.AsyncClient) -> None:
    sid = (await client.post("/session", json={"project_id": "alpha"})).json()["id"]
    glob = await put(client, text="The release train leaves on Fridays. Be on it.")
    note = await put(client, text="Session scratch note about the parser.", session_id=sid)

    root = (await client.get("/memory/context/tree", params={"uri": "svc://memory"})).json()
    assert [c["node_id"] for c in root["children"]] == [
        "tier:global",
        "tier:project",
        "tier:session",
    ]
    global_node = root["children"][0]
    assert global_node["count"] == 1
    assert global_node["children"][0]["memory_id"] == glob["id"]
    assert global_node["children"][0]["name"] == "The release train leaves on Fridays."

    sessions = (
        await client.get(
            "/memory/context/tree", params={"uri": "svc://memory/session", "max_depth": 2}
        )
    ).json()
    assert [c["node_id"] for c in sessions["children"]] == [f"session:{sid}"]
    assert sessions["children"][0]["children"][0]["memory_id"] == note["id"]

    shallow = (
        await client.get("/memory/context/tree", params={"uri": "svc://memory", "max_depth": 0})
    ).json()
    assert shallow["children"] == [] and shallow["count"] == 2


async def test_resolve_a_record_uri_and_reject_a_bad_one(client: httpx.AsyncClient) -> None:
    record = await put(client, text="Vault path is secret/ops.")
    resolved = (
        await client.post(
            "/memory/context/resolve", json={"uri": f"svc://memory/global/{record['id']}"}
        )
    ).json()
    assert resolved["node"]["node_id"] == f"memory:{record['id']}"
    assert resolved["memory"]["content"] == "Vault path is secret/ops."
    bad = await client.post("/memory/context/resolve", json={"uri": "svc://memory/nowhere"})
    assert bad.status_code == 400 and bad.json()["field"] == "uri"
    missing = await client.post("/memory/context/resolve", json={})
    assert missing.status_code == 400 and missing.json()["field"] == "uri"
    gone = await client.post("/memory/context/resolve", json={"uri": "svc://memory/global/x"})
    assert gone.status_code == 404


async def test_layers_of_a_record_and_of_a_tier(client: httpx.AsyncClient) -> None:
    long = "Deploys need two approvals. " + "Details follow. " * 100
    record = await put(client, text=long)
    await put(client, text="Backups run nightly at two.")
    one = (
        await client.post("/memory/context/layers/generate", json={"node_id": record["id"]})
    ).json()
    assert one["layers"]["L0"] == "Deploys need two approvals."
    assert one["layers"]["L2"] == long.strip()
    assert len(one["layers"]["L1"]) <= 600
    tier = (
        await client.post("/memory/context/layers/generate", json={"node_id": "tier:global"})
    ).json()
    assert tier["record_count"] == 2
    assert tier["layers"]["L1"].splitlines() == [
        "- Backups run nightly at two.",
        "- Deploys need two approvals.",
    ]


async def test_distill_keeps_durable_statements_as_session_facts(
    client: httpx.AsyncClient,
) -> None:
    sid = (await client.post("/session", json={})).json()["id"]
    conversation = [
        "user: we ship on Fridays after the review",
        "assistant: noted",
        "user: what time is the standup?",
        "user: the staging password is token=abc123secret",
        "user: we ship on Fridays after the review",
    ]
    body = {"session_id": sid, "conversation": conversation}
    first = (await client.post("/memory/context/distill", json=body)).json()
    assert first["stored"] == 2 and first["skipped"] == 3
    contents = [m["content"] for m in first["memories"]]
    assert contents == [
        "we ship on Fridays after the review",
        "the staging password is token=[REDACTED]",
    ]
    assert all(m["tier"] == "session" and m["kind"] == "fact" for m in first["memories"])
    again = (await client.post("/memory/context/distill", json=body)).json()
    assert again["stored"] == 0  # already known
    unknown = await client.post(
        "/memory/context/distill", json={"session_id": "nope", "conversation": []}
    )
    assert unknown.status_code == 404


async def test_import_reports_counts_with_errors_as_a_number(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe release train leaves on Fridays.\n")
    body = {
        "source": {"kind": "path", "path": str(folder)},
        "format": "directory",
        "tier": "global",
        "project_id": None,
        "session_id": None,
        "source_binding_id": None,
        "sync_deletes": False,
    }
    reply = (await client.post("/memory/import", json=body)).json()
    assert reply["ok"] is True and reply["errors"] == 0 and reply["error_details"] == []
    assert reply["indexed_files"] == 1 and reply["chunks_created"] >= 1
