"""The effective identity: defaults, config layers, environment variables, per-agent overrides."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from svc import Settings
from svc.identity import resolve_identity


def write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def project_file(workspace: Path) -> Path:
    return workspace / ".svc" / "config.json"


def test_defaults_fill_every_alias_from_the_name(make_settings: Callable[..., Settings]) -> None:
    data = resolve_identity(make_settings()).to_wire()
    assert data["bot"] == {
        "canonical_name": "svc",
        "avatar_url": None,
        "aliases": {
            "desktop": "svc",
            "tui": "svc TUI",
            "portal": "svc",
            "control_panel": "svc",
            "channels": "svc",
            "protocol": "svc",
            "cli": "svc",
        },
    }
    assert data["personality"] == {
        "default": {"preset": "balanced", "custom_instructions": None},
        "per_agent": {},
    }


@pytest.mark.parametrize("prefix", ["AGENT_", "SVC_"])
def test_environment_names_and_persona_win_over_files(
    make_settings: Callable[..., Settings], project_file: Path, prefix: str
) -> None:
    write(
        project_file,
        {
            "identity": {
                "bot": {"canonical_name": "FileBot"},
                "personality": {"default": {"custom_instructions": "from file"}},
            }
        },
    )
    settings = make_settings(
        env={
            f"{prefix}BOT_NAME": "Ada",
            f"{prefix}PERSONA": "Speak like a pirate.",
            f"{prefix}PROTOCOL_TITLE": "Ada Runtime",
        }
    )
    identity = resolve_identity(settings)
    assert identity.name == "Ada"
    assert identity.data["bot"]["aliases"]["tui"] == "Ada TUI"
    assert identity.protocol_title == "Ada Runtime"
    assert identity.data["personality"]["default"]["custom_instructions"] == "Speak like a pirate."


def test_canonical_env_prefix_wins_over_the_alias(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(env={"AGENT_BOT_NAME": "Canonical", "SVC_BOT_NAME": "Alias"})
    assert resolve_identity(settings).name == "Canonical"


def test_layers_merge_with_project_over_global_and_block_over_legacy_keys(
    make_settings: Callable[..., Settings],
    project_file: Path,
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "global-config.json",
        {
            "bot_name": "GlobalBot",
            "identity": {
                "bot": {"aliases": {"portal": "Portal Name"}},
                "personality": {"default": {"preset": "mentor"}},
            },
        },
    )
    write(
        project_file,
        {"bot_name": "LegacyProject", "identity": {"bot": {"canonical_name": "ProjectBot"}}},
    )
    identity = resolve_identity(make_settings())
    assert identity.name == "ProjectBot"
    assert identity.data["bot"]["aliases"]["portal"] == "Portal Name"
    assert identity.data["bot"]["aliases"]["desktop"] == "ProjectBot"
    assert identity.personality_for() == ("mentor", None)


def test_unknown_presets_fall_back_to_balanced(
    make_settings: Callable[..., Settings], project_file: Path
) -> None:
    write(project_file, {"identity": {"personality": {"default": {"preset": "sarcastic"}}}})
    assert resolve_identity(make_settings()).personality_for() == ("balanced", None)


def test_instructions_combine_preset_and_custom_text_with_agent_overrides(
    make_settings: Callable[..., Settings],
    project_file: Path,
) -> None:
    write(
        project_file,
        {
            "identity": {
                "personality": {
                    "default": {"preset": "concise", "custom_instructions": "Use metric units."},
                    "per_agent": {
                        "reviewer": {"preset": "critical"},
                        "tutor": {"preset": "mentor", "custom_instructions": "Use examples."},
                        "plain": {"preset": "balanced"},
                    },
                }
            }
        },
    )
    identity = resolve_identity(make_settings())
    default = identity.instructions_for()
    assert (
        default is not None
        and default.startswith("Be concise")
        and default.endswith("Use metric units.")
    )
    reviewer = identity.instructions_for("reviewer")
    assert (
        reviewer is not None
        and reviewer.startswith("Be a critical reviewer")
        and "metric" in reviewer
    )
    tutor = identity.instructions_for("tutor")
    assert (
        tutor is not None
        and tutor.startswith("Act as a mentor")
        and tutor.endswith("Use examples.")
    )
    assert identity.instructions_for("plain") == "Use metric units."
    assert identity.instructions_for("unknown-agent") == default


def test_balanced_without_custom_text_adds_nothing(make_settings: Callable[..., Settings]) -> None:
    assert resolve_identity(make_settings()).instructions_for() is None
