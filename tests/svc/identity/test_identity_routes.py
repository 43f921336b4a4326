"""``GET`` and ``PATCH /config/identity``: the project config layer, reloads, and refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import svc
from tests.helpers import wait_for_event


def project_file(workspace: Path) -> Path:
    return workspace / ".svc" / "config.json"


async def patch(client: httpx.AsyncClient, body: Any) -> httpx.Response:
    return await client.patch("/config/identity", json=body)


async def test_get_lists_identity_and_the_five_presets(client: httpx.AsyncClient) -> None:
    body = (await client.get("/config/identity")).json()
    assert body["identity"]["bot"]["canonical_name"] == "svc"
    assert [p["id"] for p in body["presets"]] == [
        "balanced",
        "concise",
        "friendly",
        "mentor",
        "critical",
    ]
    assert set(body["presets"][0]) == {"id", "label", "description"}


async def test_patch_writes_the_project_layer_and_reloads(
    client: httpx.AsyncClient, engine: svc.Engine, workspace: Path
) -> None:
    assert not (workspace / ".svc").exists()
    response = await patch(
        client,
        {
            "bot": {"canonicalName": "Ada", "aliases": {"controlPanel": "Ada Panel"}},
            "personality": {
                "default": {"preset": "friendly"},
                "per_agent": {"Reviewer-1": {"preset": "critical"}},
            },
        },
    )
    assert response.status_code == 200, response.text
    identity = response.json()["identity"]
    assert (
        identity["bot"]["canonical_name"] == "Ada"
        and identity["bot"]["aliases"]["tui"] == "Ada TUI"
    )
    assert identity["bot"]["aliases"]["control_panel"] == "Ada Panel"
    assert identity["personality"]["default"]["preset"] == "friendly"
    assert identity["personality"]["per_agent"] == {
        "Reviewer-1": {"preset": "critical", "custom_instructions": None}
    }
    written = json.loads(project_file(workspace).read_text())
    assert written["identity"]["bot"]["canonical_name"] == "Ada"
    assert (await client.get("/config/identity")).json()["identity"] == identity
    assert engine.settings.identity["bot"]["canonical_name"] == "Ada"
    event = await wait_for_event(engine, "config.identity.updated")
    assert event.properties == {"name": "Ada", "preset": "friendly", "agents": ["Reviewer-1"]}


async def test_patch_keeps_other_project_settings_and_merges_successive_patches(
    client: httpx.AsyncClient,
    workspace: Path,
) -> None:
    project_file(workspace).parent.mkdir()
    project_file(workspace).write_text(
        json.dumps(
            {
                "default_provider": "openai",
                "identity": {
                    "personality": {
                        "per_agent": {"a": {"preset": "mentor"}, "b": {"preset": "concise"}}
                    }
                },
            }
        )
    )
    await patch(client, {"identity": {"bot": {"canonical_name": "Bo"}}})
    body = (
        await patch(
            client,
            {
                "personality": {
                    "per_agent": {"a": None},
                    "default": {"custom_instructions": "Answer in French."},
                }
            },
        )
    ).json()["identity"]
    assert body["bot"]["canonical_name"] == "Bo"
    assert list(body["personality"]["per_agent"]) == ["b"]
    assert body["personality"]["default"]["custom_instructions"] == "Answer in French."
    cleared = (
        await patch(client, {"personality": {"default": {"custom_instructions": None}}})
    ).json()
    assert cleared["identity"]["personality"]["default"]["custom_instructions"] is None
    assert json.loads(project_file(workspace).read_text())["default_provider"] == "openai"


async def test_legacy_keys_are_mapped(client: httpx.AsyncClient, engine: svc.Engine) -> None:
    body = (
        await patch(
            client, {"bot_name": "Old", "persona": "Be brief.", "protocol_title": "Old Runtime"}
        )
    ).json()
    identity = body["identity"]
    assert identity["bot"]["canonical_name"] == "Old"
    assert identity["personality"]["default"]["custom_instructions"] == "Be brief."
    assert identity["bot"]["aliases"]["protocol"] == "Old Runtime"
    # The protocol alias is the title providers send.
    assert engine.settings.protocol_title == "Old Runtime"


async def test_the_environment_still_wins_after_a_patch(
    make_settings: Any, workspace: Path
) -> None:
    settings = make_settings(env={"AGENT_BOT_NAME": "EnvBot"})
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        body = (await patch(client, {"bot": {"canonical_name": "PatchedBot"}})).json()
        assert body["identity"]["bot"]["canonical_name"] == "EnvBot"
        assert (
            json.loads(project_file(workspace).read_text())["identity"]["bot"]["canonical_name"]
            == "PatchedBot"
        )


@pytest.mark.parametrize(
    "body",
    [
        {"bot": {"canonical_name": "x", "api_key": "sk-123"}},
        {"identity": {"bot": {"aliases": {"x": "y"}, "Authorization": "Bearer x"}}},
        {"personality": {"default": {"preset": "concise"}}, "token": "abc"},
        {"bot": {"canonical_name": "x"}, "client_secret": "s"},
    ],
)
async def test_secret_looking_keys_are_rejected(
    client: httpx.AsyncClient, workspace: Path, body: dict
) -> None:
    response = await patch(client, body)
    assert response.status_code == 400
    assert response.json()["code"] == "CONFIG_SECRET_REJECTED"
    assert response.json()["hint"] == "Use PUT /auth/{provider} or environment variables."
    assert "sk-123" not in response.text and "Bearer x" not in response.text
    assert not project_file(workspace).exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"personality": {"default": {"preset": "sarcastic"}}}, "personality.default.preset"),
        ({"bot": {"canonical_name": 5}}, "bot.canonical_name"),
        ({"bot": {"nickname": "x"}}, "bot.nickname"),
        ({"bot": "Ada"}, "bot"),
        ({"colour": "blue"}, "colour"),
        ({"bot": {"avatar_url": "ftp://x/y.png"}}, "bot.avatar_url"),
        ({"personality": {"per_agent": ["a"]}}, "personality.per_agent"),
        ({"identity": {"bot": {"canonical_name": "x"}}, "extra": 1}, "extra"),
        ({}, "$"),
    ],
)
async def test_invalid_patches_are_400_naming_the_field(
    client: httpx.AsyncClient, body: dict, field: str
) -> None:
    response = await patch(client, body)
    assert response.status_code == 400, response.text
    assert response.json()["field"] == field


async def test_avatar_urls_accept_http_and_data_images(client: httpx.AsyncClient) -> None:
    image = "data:image/png;base64,iVBORw0KGgo="
    body = (await patch(client, {"bot": {"avatar_url": image}})).json()
    assert body["identity"]["bot"]["avatar_url"] == image
    body = (await patch(client, {"bot": {"avatar_url": "https://example.com/a.png"}})).json()
    assert body["identity"]["bot"]["avatar_url"] == "https://example.com/a.png"


async def test_an_invalid_project_file_is_refused_untouched(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    project_file(workspace).parent.mkdir()
    project_file(workspace).write_text("{not json")
    response = await patch(client, {"bot": {"canonical_name": "x"}})
    assert response.status_code == 400 and response.json()["code"] == "CONFIG_INVALID"
    assert project_file(workspace).read_text() == "{not json"


@pytest.mark.parametrize("prefix", ["AGENT_", "SVC_"])
async def test_protocol_title_from_the_environment_is_the_protocol_alias(
    make_settings: Any, prefix: str
) -> None:
    settings = make_settings(
        env={f"{prefix}PROTOCOL_TITLE": "Ada Runtime", f"{prefix}BOT_NAME": "Ada"}
    )
    async with (
        svc.open_engine(settings, serve_http=True) as engine,
        httpx.AsyncClient(base_url=engine.url or "") as client,
    ):
        bot = (await client.get("/config/identity")).json()["identity"]["bot"]
        assert engine.settings.protocol_title == "Ada Runtime"
    assert bot["canonical_name"] == "Ada" and bot["aliases"]["protocol"] == "Ada Runtime"
    assert bot["aliases"]["tui"] == "Ada TUI" and bot["aliases"]["cli"] == "Ada"
