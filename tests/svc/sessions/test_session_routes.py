"""Session CRUD and message routes, with the wire shapes clients parse."""

from __future__ import annotations

from pathlib import Path

import httpx

import svc


async def create(client: httpx.AsyncClient, **body: object) -> dict:
    response = await client.post("/session", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def test_create_returns_a_wire_session(client: httpx.AsyncClient, workspace: Path) -> None:
    session = await create(
        client, title="hello", model={"providerID": "local", "modelID": "echo-1"}
    )
    assert session["title"] == "hello"
    assert session["version"] == "v1"
    assert session["directory"] == str(workspace.resolve()) == session["workspaceRoot"]
    assert session["model"] == {"providerID": "local", "modelID": "echo-1"}
    assert session["messages"] == []
    assert isinstance(session["time"]["created"], int)
    assert set(session["environment"]) == {"os", "arch", "shell_family", "path_style"}


async def test_default_title_and_snake_case_model(client: httpx.AsyncClient) -> None:
    session = await create(client, model={"provider_id": "local", "model_id": "echo-1"})
    assert session["title"] == "New session"
    assert session["model"]["modelID"] == "echo-1"


async def test_list_get_patch_delete(client: httpx.AsyncClient) -> None:
    first = await create(client, title="first")
    second = await create(client, title="second")
    listed = (await client.get("/session")).json()
    assert [s["id"] for s in listed][:2] == [second["id"], first["id"]]
    assert (await client.get(f"/session/{first['id']}")).json()["title"] == "first"

    patched = await client.patch(f"/session/{first['id']}", json={"title": "renamed"})
    assert patched.status_code == 200
    assert patched.json()["title"] == "renamed"
    assert (await client.get(f"/api/session/{first['id']}")).json()["title"] == "renamed"

    assert (await client.delete(f"/session/{first['id']}")).json() == {"deleted": True}
    missing = await client.get(f"/session/{first['id']}")
    assert missing.status_code == 404
    assert missing.json()["code"] == "SESSION_NOT_FOUND"


async def test_archived_sessions_are_hidden_unless_asked(client: httpx.AsyncClient) -> None:
    session = await create(client, title="old")
    await client.patch(f"/session/{session['id']}", json={"archived": True})
    assert session["id"] not in [s["id"] for s in (await client.get("/session")).json()]
    archived = (await client.get("/session", params={"archived": "true"})).json()
    assert session["id"] in [s["id"] for s in archived]


async def test_append_message_flattens_file_parts(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("hi")
    session = await create(client)
    parts = [
        {"type": "text", "text": "look"},
        {
            "type": "file",
            "mime": "text/plain",
            "filename": "notes.txt",
            "url": str(workspace / "notes.txt"),
        },
    ]
    message = (await client.post(f"/session/{session['id']}/message", json={"parts": parts})).json()
    assert message["info"]["role"] == "user"
    assert message["parts"][0] == {"type": "text", "text": "look"}
    listed = (await client.get(f"/session/{session['id']}/message")).json()
    assert [m["info"]["id"] for m in listed] == [message["info"]["id"]]


async def test_unknown_session_is_404_everywhere(client: httpx.AsyncClient) -> None:
    for method, path in [
        ("GET", "/session/nope"),
        ("PATCH", "/session/nope"),
        ("DELETE", "/session/nope"),
        ("GET", "/session/nope/message"),
        ("POST", "/session/nope/prompt_async"),
        ("GET", "/session/nope/run"),
        ("POST", "/session/nope/cancel"),
    ]:
        response = await client.request(method, path, json={})
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["code"] == "SESSION_NOT_FOUND"


async def test_bad_bodies_are_400_naming_the_field(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    assert (await client.post("/session", content=b"{oops")).status_code == 400
    bad = await client.post("/session", json={"title": 5})
    assert bad.status_code == 400 and bad.json()["field"] == "title"
    session = await create(client)
    cases = [
        ({"parts": [{"type": "text"}]}, "parts[0].text"),
        ({"parts": [{"type": "image", "url": "x"}]}, "parts[0].type"),
        ({"parts": [{"type": "text", "text": "a"}, {"type": "file"}]}, "parts[1].url"),
        ({"parts": "hello"}, "parts"),
        ({"parts": [], "toolMode": "sometimes"}, "toolMode"),
    ]
    for body, field in cases:
        response = await client.post(f"/session/{session['id']}/prompt_async", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["field"] == field
        assert response.json()["code"] == "VALIDATION_FAILED"


async def test_local_file_outside_the_workspace_is_refused(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("no")
    session = await create(client)
    for url in (str(outside), f"file://{outside}", "../secret.txt"):
        body = {"parts": [{"type": "file", "mime": "text/plain", "url": url}]}
        response = await client.post(f"/session/{session['id']}/prompt_async", json=body)
        assert response.status_code == 400
        assert response.json()["code"] == "FILE_OUTSIDE_WORKSPACE"
        assert response.json()["field"] == "parts[0].url"
