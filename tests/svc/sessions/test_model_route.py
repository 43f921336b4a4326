"""A session's or prompt's ``model`` reaches the run, from the very first body on.

The soak saw a session created with ``model.providerID`` routed to the default
provider. Nested aliases (``providerID`` inside ``model``) were folded by the field's
type, which under ``from __future__ import annotations`` stays a string until cattrs
first structures the class: the first body of each class lost its model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from svc.convert import aliases, structure
from tests.fakes import Turn, open_fake_openai


@attrs.frozen
class _Inner:
    provider_id: str | None = aliases("providerID", default=None)


@attrs.frozen
class _Outer:
    inner: _Inner | None = None


def test_the_first_body_of_a_class_keeps_its_nested_aliases() -> None:
    # A class never structured before: its field types are still strings here.
    assert structure(_Outer, {"inner": {"providerID": "groq"}}).inner == _Inner("groq")


@pytest.fixture
async def tools_model() -> AsyncIterator[Any]:
    async with open_fake_openai() as server:
        yield server


async def test_a_fresh_engine_routes_the_sessions_model_not_the_default(
    served: Callable[..., Any], tmp_path: Path, fake_model: Any, tools_model: Any
) -> None:
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "default_provider": "openai",
                "providers": {
                    "openai": {"url": fake_model.url, "api_key": "sk-t1", "default_model": "f"},
                    "groq": {"url": tools_model.url, "api_key": "sk-t2", "default_model": "tools"},
                },
            }
        )
    )
    # A process of its own: these are the first bodies its routes ever structure.
    server = await served("--quiet", "--config", str(config))
    tools_model.enqueue(Turn.reply("from the tools model"))
    async with httpx.AsyncClient(base_url=server.url, timeout=60.0) as client:
        body = {"title": "t", "model": {"providerID": "groq", "modelID": "tools"}}
        sid = (await client.post("/session", json=body)).json()["id"]
        reply = await client.post(
            f"/session/{sid}/prompt_sync", json={"parts": [{"type": "text", "text": "hi"}]}
        )
        assert reply.status_code == 200, reply.text
    assert [r.body["model"] for r in tools_model.requests] == ["tools"]
    assert fake_model.requests == []
