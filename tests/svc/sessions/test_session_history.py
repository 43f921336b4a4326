"""Fork, children, diff, revert/unrevert, summarize and attach, in the shapes clients send
and read (a session record with `id` and `title`; `diff` and `files`; lists of sessions)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from tests.fakes.turns import FakeToolCall, Turn


@pytest.fixture
async def model_engine(model_settings: Any) -> AsyncIterator[svc.Engine]:
    async with svc.open_engine(model_settings, serve_http=True) as eng:
        yield eng


@pytest.fixture
async def mclient(model_engine: svc.Engine) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=model_engine.url or "", timeout=30.0) as c:
        yield c


async def prompt(client: httpx.AsyncClient, session_id: str, text: str) -> dict[str, Any]:
    response = await client.post(
        f"/session/{session_id}/prompt_sync", json={"parts": [{"type": "text", "text": text}]}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def texts(client: httpx.AsyncClient, session_id: str) -> list[str]:
    messages = (await client.get(f"/session/{session_id}/message")).json()
    return ["".join(p.get("text", "") for p in m["parts"]) for m in messages]


async def new_session(client: httpx.AsyncClient, title: str = "history") -> str:
    return str((await client.post("/session", json={"title": title})).json()["id"])


async def test_fork_copies_the_transcript_into_a_linked_child(client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    await prompt(client, sid, "first")
    await prompt(client, sid, "second")
    whole = await client.post(f"/session/{sid}/fork", json={})
    assert whole.status_code == 200, whole.text
    child = whole.json()
    assert child["id"] != sid and child["title"] == "history (fork)"
    assert child["parentID"] == sid
    assert await texts(client, child["id"]) == await texts(client, sid)

    first_reply = (await client.get(f"/session/{sid}/message")).json()[1]["info"]["id"]
    part = (await client.post(f"/session/{sid}/fork", json={"messageID": first_reply})).json()
    assert await texts(client, part["id"]) == ["first", "first"]

    children = (await client.get(f"/session/{sid}/children")).json()
    assert [c["id"] for c in children] == [child["id"], part["id"]]
    assert all(c["title"] for c in children)

    bad = await client.post(f"/session/{sid}/fork", json={"messageID": "nope"})
    assert bad.status_code == 400 and bad.json()["field"] == "messageID"
    missing = await client.post("/session/missing/fork", json={})
    assert missing.status_code == 404


async def test_revert_hides_the_last_turn_and_unrevert_brings_it_back(
    client: httpx.AsyncClient,
) -> None:
    sid = await new_session(client)
    await prompt(client, sid, "keep this")
    await prompt(client, sid, "drop this")
    reverted = await client.post(f"/session/{sid}/revert", json={})
    assert reverted.status_code == 200, reverted.text
    body = reverted.json()
    assert body["ok"] is True and body["hiddenMessages"] == 2
    assert await texts(client, sid) == ["keep this", "keep this"]
    session = (await client.get(f"/session/{sid}")).json()
    assert len(session["messages"]) == 2

    restored = (await client.post(f"/session/{sid}/unrevert", json={})).json()
    assert restored["restoredMessages"] == 2
    assert await texts(client, sid) == ["keep this", "keep this", "drop this", "drop this"]
    # Unrevert with nothing reverted is a no-op, not an error.
    assert (await client.post(f"/session/{sid}/unrevert", json={})).json()["ok"] is True


async def test_a_prompt_after_a_revert_makes_it_final_and_the_model_never_sees_it(
    mclient: httpx.AsyncClient, fake_model: Any
) -> None:
    sid = await new_session(mclient)
    await prompt(mclient, sid, "alpha")
    await prompt(mclient, sid, "beta")
    await mclient.post(f"/session/{sid}/revert", json={})
    await prompt(mclient, sid, "gamma")
    sent = [m.get("content") for m in fake_model.requests[-1].body["messages"]]
    assert "beta" not in sent and "alpha" in sent
    assert await texts(mclient, sid) == ["alpha", "alpha", "gamma", "gamma"]
    # The hidden messages are gone for good now.
    assert (await mclient.post(f"/session/{sid}/unrevert", json={})).json()["restoredMessages"] == 0
    assert await texts(mclient, sid) == ["alpha", "alpha", "gamma", "gamma"]


async def test_diff_lists_the_files_the_session_wrote_and_edited(
    model_engine: svc.Engine, mclient: httpx.AsyncClient, fake_model: Any, workspace: Path
) -> None:
    sid = await new_session(mclient)
    model_engine.permissions.grant_session(sid, ["write", "edit"])
    assert (await mclient.get(f"/session/{sid}/diff")).json()["files"] == []
    fake_model.enqueue(
        Turn.calls(FakeToolCall("write", {"path": "notes.txt", "content": "one\ntwo\n"})),
        Turn.calls(FakeToolCall("edit", {"path": "notes.txt", "old": "two", "new": "three"})),
        Turn.reply("done"),
    )
    await prompt(mclient, sid, "write and edit")
    assert (workspace / "notes.txt").read_text() == "one\nthree\n"
    diff = (await mclient.get(f"/session/{sid}/diff")).json()
    assert diff["files"] == ["notes.txt"]
    assert "+one" in diff["diff"] and "-two" in diff["diff"] and "+three" in diff["diff"]
    assert [c["tool"] for c in diff["changes"]] == ["write", "edit"]

    reverted = (await mclient.post(f"/session/{sid}/revert", json={})).json()
    assert reverted["files"] == ["notes.txt"] and reverted["workspace"] == "unchanged"
    assert (await mclient.get(f"/session/{sid}/diff")).json()["files"] == []


async def test_summarize_runs_the_model_and_answers_with_the_summary(
    mclient: httpx.AsyncClient, fake_model: Any
) -> None:
    sid = await new_session(mclient)
    await prompt(mclient, sid, "we ship on fridays")
    fake_model.enqueue(Turn.reply("Shipping happens on Fridays."))
    body = (await mclient.post(f"/session/{sid}/summarize", json={})).json()
    assert body["ok"] is True and body["summary"] == "Shipping happens on Fridays."
    request = fake_model.requests[-1].body
    assert "tools" not in request or not request["tools"]
    assert "Summarize" in request["messages"][-1]["content"]
    assert (await mclient.get(f"/session/{sid}/message")).json()[-1]["info"]["id"] == body[
        "messageID"
    ]


async def test_attach_moves_the_session_to_another_workspace_directory(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    sid = await new_session(client)
    (workspace / "sub").mkdir()
    body = (await client.post(f"/session/{sid}/attach", json={"target_workspace": "sub"})).json()
    assert body["ok"] is True
    assert body["directory"] == str((workspace / "sub").resolve())
    assert (await client.get(f"/session/{sid}")).json()["directory"] == body["directory"]

    (workspace / "file.txt").write_text("x")
    not_dir = await client.post(f"/session/{sid}/attach", json={"target_workspace": "file.txt"})
    assert not_dir.status_code == 400 and not_dir.json()["field"] == "target_workspace"
    missing = await client.post(f"/session/{sid}/attach", json={"target_workspace": "nope"})
    assert missing.status_code == 400 and missing.json()["field"] == "target_workspace"

    parent = await new_session(client, "parent")
    linked = (await client.post(f"/session/{sid}/attach", json={"parentID": parent})).json()
    assert linked["parentID"] == parent
    assert [c["id"] for c in (await client.get(f"/session/{parent}/children")).json()] == [sid]


async def test_a_run_reads_only_the_history_it_replays_to_the_model(
    mclient: httpx.AsyncClient, fake_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newest HISTORY_MESSAGES messages reach the model, read newest first (a long
    session's whole transcript is not parsed for every run)."""
    import svc.sessions.context
    import svc.sessions.run

    for module in (svc.sessions.run, svc.sessions.context):
        monkeypatch.setattr(module, "HISTORY_MESSAGES", 4)
    sid = await new_session(mclient)
    for n in range(1, 5):
        fake_model.enqueue(Turn.reply(f"reply {n}"))
        await prompt(mclient, sid, f"turn {n}")
    fake_model.enqueue(Turn.reply("reply 5"))
    body = await prompt(mclient, sid, "turn 5")
    assert body["reply"] == "reply 5"
    sent = [(m["role"], m.get("content")) for m in fake_model.requests[-1].body["messages"]]
    assert sent[1:] == [
        ("user", "turn 3"),
        ("assistant", "reply 3"),
        ("user", "turn 4"),
        ("assistant", "reply 4"),
        ("user", "turn 5"),
    ]
    assert len(await texts(mclient, sid)) == 10  # the transcript itself is whole
