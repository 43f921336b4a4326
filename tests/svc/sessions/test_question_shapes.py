"""A pending question in the shape clients parse (`text`, `choices`, `status`), answered with
the single-answer body they send."""

from __future__ import annotations

import json

import httpx

import svc
from tests.helpers import wait_for_event


async def test_a_pending_question_has_text_and_choices_and_takes_one_answer(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    sid = (await client.post("/session", json={"title": "ask"})).json()["id"]
    args = {"questions": [{"question": "Which DB?", "options": ["Postgres", "SQLite"]}]}
    started = await client.post(
        f"/session/{sid}/prompt_async",
        params={"return": "run"},
        json={"parts": [{"type": "text", "text": "/tool question " + json.dumps(args)}]},
    )
    run_id = started.json()["runID"]
    asked = await wait_for_event(engine, "question.asked", run_id=run_id)
    (listed,) = (await client.get("/question")).json()
    assert listed["text"] == "Which DB?" and listed["choices"] == ["Postgres", "SQLite"]
    assert listed["status"] == "pending" and listed["sessionID"] == sid
    reply = await client.post(
        f"/question/{asked.properties['id']}/reply", json={"answer": "SQLite"}
    )
    assert reply.status_code == 200, reply.text
    await wait_for_event(engine, "session.run.finished", run_id=run_id)
