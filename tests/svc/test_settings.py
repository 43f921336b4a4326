from __future__ import annotations

import json
from pathlib import Path

import pytest

from svc import Settings
from svc.errors import ConfigError


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def layers(tmp_path: Path) -> dict[str, Path]:
    ws = tmp_path / "ws"
    return {
        "workspace": ws,
        "global": tmp_path / "global.json",
        "project": ws / ".svc" / "config.json",
        "managed": ws / ".svc" / "managed_config.json",
    }


def load(
    layers: dict[str, Path], env: dict[str, str] | None = None, **overrides: object
) -> Settings:
    base = {"workspace": layers["workspace"], "global_config": layers["global"], **overrides}
    return Settings.load(base, environ=env or {})


def test_layers_merge_with_env_over_managed_over_project_over_global(
    layers: dict[str, Path],
) -> None:
    write(
        layers["global"],
        {
            "default_provider": "openai",
            "bot_name": "global",
            "providers": {"openai": {"default_model": "g-model"}},
        },
    )
    write(
        layers["project"],
        {
            "bot_name": "project",
            "persona": "project",
            "providers": {"ollama": {"url": "http://127.0.0.1:1/v1"}},
        },
    )
    write(layers["managed"], {"persona": "managed", "port": 4000})
    settings = load(layers, {"SVC_ENGINE_PORT": "5000"})
    assert settings.default_provider == "openai"  # only global sets it
    assert settings.bot_name == "project"  # project over global
    assert settings.persona == "managed"  # managed over project
    assert settings.port == 5000  # env over managed
    assert set(settings.providers) == {"openai", "ollama"}  # deep merge
    assert settings.providers["openai"].default_model == "g-model"


def test_cli_overrides_beat_everything(layers: dict[str, Path]) -> None:
    settings = load(
        layers,
        {"SVC_ENGINE_PORT": "5000"},
        port=6000,
        provider="OpenRouter",
        model="m1",
        api_key="k-123",
    )
    assert settings.port == 6000
    assert settings.default_provider == "openrouter"
    assert settings.providers["openrouter"].default_model == "m1"
    assert settings.providers["openrouter"].api_key.get_secret_value() == "k-123"


def test_canonical_agent_prefix_wins_over_svc(layers: dict[str, Path]) -> None:
    settings = load(
        layers, {"AGENT_BOT_NAME": "canonical", "SVC_BOT_NAME": "compat", "SVC_PERSONA": "p"}
    )
    assert settings.bot_name == "canonical"
    assert settings.persona == "p"


def test_global_config_path_from_env(tmp_path: Path) -> None:
    path = write(tmp_path / "elsewhere.json", {"bot_name": "from-env-path"})
    settings = Settings.load({"workspace": tmp_path}, environ={"AGENT_GLOBAL_CONFIG": str(path)})
    assert settings.bot_name == "from-env-path"


def test_provider_key_variables_configure_providers(layers: dict[str, Path]) -> None:
    settings = load(
        layers,
        {
            "ANTHROPIC_API_KEY": "ak-1",
            "GITHUB_TOKEN": "x",
            "COPILOT_API_KEY": "cp-1",
            "OPENAI_API_KEY": "placeholder",
            "OLLAMA_URL": "http://127.0.0.1:9/v1",
            "ANTHROPIC_MODEL": "claude-x",
        },
    )
    assert settings.providers["anthropic"].api_key.get_secret_value() == "ak-1"
    assert settings.providers["anthropic"].default_model == "claude-x"
    assert settings.providers["copilot"].api_key.get_secret_value() == "cp-1"
    assert "openai" not in settings.providers
    assert settings.providers["ollama"].url == "http://127.0.0.1:9/v1"


def test_invalid_json_names_the_file_and_line(layers: dict[str, Path]) -> None:
    layers["project"].parent.mkdir(parents=True)
    layers["project"].write_text('{\n  "port": 1,\n  oops\n}')
    with pytest.raises(ConfigError) as info:
        load(layers)
    assert "config.json" in info.value.message and "line 3" in info.value.message


def test_invalid_value_names_the_field(layers: dict[str, Path]) -> None:
    write(layers["project"], {"port": "not-a-port"})
    with pytest.raises(ConfigError) as info:
        load(layers)
    assert info.value.extra["field"] == "port"


def test_reload_rereads_files(layers: dict[str, Path]) -> None:
    write(layers["project"], {"bot_name": "before"})
    settings = load(layers)
    write(layers["project"], {"bot_name": "after"})
    assert settings.reload().bot_name == "after"


def test_secrets_are_not_in_repr(layers: dict[str, Path]) -> None:
    settings = load(layers, {"OPENAI_API_KEY": "sk-supersecret", "SVC_API_TOKEN": "tk_abcdef"})
    assert "sk-supersecret" not in repr(settings)
    assert "tk_abcdef" not in repr(settings)
    assert "sk-supersecret" not in json.dumps(settings.redacted_providers())


def test_allowed_hosts_and_origins_are_empty_by_default(layers: dict[str, Path]) -> None:
    settings = load(layers)
    assert settings.allowed_hosts == [] and settings.allowed_origins == []


def test_allowed_hosts_and_origins_come_comma_separated_from_the_environment(
    layers: dict[str, Path],
) -> None:
    env = {
        "SVC_ALLOWED_HOSTS": " box.lan, engine.internal ,,",
        "AGENT_ALLOWED_ORIGINS": "https://app.example,http://localhost:3000",
    }
    settings = load(layers, env)
    assert settings.allowed_hosts == ["box.lan", "engine.internal"]
    assert settings.allowed_origins == ["https://app.example", "http://localhost:3000"]


def test_allowed_hosts_and_origins_in_config_files(layers: dict[str, Path]) -> None:
    write(layers["project"], {"allowed_hosts": ["box.lan"], "allowed_origins": "https://a.example"})
    settings = load(layers)
    assert settings.allowed_hosts == ["box.lan"]
    assert settings.allowed_origins == ["https://a.example"]
    # The environment replaces a file's list rather than adding to it.
    assert load(layers, {"SVC_ALLOWED_HOSTS": "other.lan"}).allowed_hosts == ["other.lan"]
