"""`run`, `parallel` and `tool` in a real subprocess, against the scripted model server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.turns import Turn


@pytest.fixture
def model_config(tmp_path: Path, fake_model: Any) -> Path:
    config = tmp_path / "ws" / ".svc" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "default_provider": "openai",
                "providers": {"openai": {"url": fake_model.url, "default_model": "fake-model"}},
            }
        )
    )
    return config


async def test_run_prints_the_reply(run_cli: Callable, model_config: Path, fake_model: Any) -> None:
    fake_model.enqueue(Turn.reply("The capital is Paris."))
    result = await run_cli("run", "capital of France?", env={"OPENAI_API_KEY": "sk-cli-test-1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().strip() == "The capital is Paris."
    assert fake_model.requests[0].headers["authorization"] == "Bearer sk-cli-test-1"


async def test_run_api_key_flag_applies_to_this_invocation(
    run_cli: Callable, model_config: Path, fake_model: Any
) -> None:
    result = await run_cli("run", "hi", "--api-key", "sk-flag-only")
    assert result.returncode == 0, result.stderr
    assert fake_model.requests[0].headers["authorization"] == "Bearer sk-flag-only"
    assert "sk-flag-only" not in model_config.read_text()


async def test_unknown_provider_fails_fast_listing_configured_ones(
    run_cli: Callable, model_config: Path, fake_model: Any
) -> None:
    result = await run_cli("run", "hi", "--provider", "groq")
    assert result.returncode == 2
    assert result.stderr.decode() == (
        "error: provider `groq` is not configured: set GROQ_API_KEY (or "
        "`providers.groq.api_key`). configured providers: local (offline echo model), openai\n"
    )
    assert fake_model.requests == []


async def test_an_unknown_provider_names_the_valid_ids(run_cli: Callable) -> None:
    result = await run_cli("run", "hi", "--provider", "nope")
    assert result.returncode == 2 and result.stdout == b""
    error = result.stderr.decode()
    assert error.startswith("error: unknown provider `nope`. valid ids: local, openai, ")
    assert "cohere (or a custom id with a `url` in the config)" in error
    assert error.rstrip().endswith("configured providers: local (offline echo model)")


async def test_a_rejected_key_fails_with_the_providers_error_and_the_variable_to_fix(
    run_cli: Callable, model_config: Path, fake_model: Any
) -> None:
    fake_model.enqueue(Turn.failure(401, "Incorrect API key provided"))
    result = await run_cli("run", "hi", env={"OPENAI_API_KEY": "sk-wrong-key-1"})
    assert result.returncode == 1 and result.stdout == b""
    assert result.stderr.decode() == (
        "error: provider `openai` returned HTTP 401: Incorrect API key provided "
        "(check OPENAI_API_KEY (or `providers.openai.api_key`))\n"
    )


async def test_run_works_offline_with_the_local_model_and_says_so_on_stderr(
    run_cli: Callable,
) -> None:
    result = await run_cli("run", "echo me")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == "echo me\n"
    notice = result.stderr.decode()
    assert notice.startswith("note: no model provider is configured: the offline echo model")
    assert "OPENAI_API_KEY" in notice and "OLLAMA_URL" in notice and "--quiet" in notice


async def test_quiet_silences_the_notice(run_cli: Callable, tmp_path: Path) -> None:
    result = await run_cli("run", "echo me", "--quiet", "--state-dir", str(tmp_path / "st"))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"echo me\n", b"")
    named = await run_cli("run", "echo me", "--provider", "local")
    assert (named.stdout, named.stderr) == (b"echo me\n", b"")


async def test_no_notice_when_a_provider_is_configured(
    run_cli: Callable, model_config: Path, fake_model: Any
) -> None:
    result = await run_cli("run", "hi", env={"OPENAI_API_KEY": "sk-cli-test-2"})
    assert (result.returncode, result.stderr) == (0, b"")


async def test_parallel_notice_goes_to_stderr_only(run_cli: Callable) -> None:
    result = await run_cli("parallel", "--json", '["a", "b"]')
    assert result.returncode == 0
    assert [r["output"] for r in json.loads(result.stdout)["results"]] == ["a", "b"]
    assert result.stderr.decode().count("no model provider is configured") == 1
    quiet = await run_cli("parallel", "--json", '["a"]', "--quiet")
    assert quiet.stderr == b""


async def test_parallel_summary_and_exit_code(
    run_cli: Callable, model_config: Path, fake_model: Any, tmp_path: Path
) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(
        json.dumps(
            {
                "tasks": [
                    {"id": "a", "prompt": "first"},
                    "second",
                    {"prompt": "third", "provider": "nope"},
                ]
            }
        )
    )
    result = await run_cli(
        "parallel", "--json", f"@{tasks}", "--concurrency", "2", env={"OPENAI_API_KEY": "sk-x-1234"}
    )
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    assert summary["concurrency"] == 2 and summary["total"] == 3 and summary["failures"] == 1
    assert [r["id"] for r in summary["results"]] == ["a", "task-2", "task-3"]
    assert summary["results"][0] == {
        "id": "a",
        "provider": None,
        "status": "ok",
        "output": "first",
        "error": None,
    }
    assert (
        summary["results"][2]["status"] == "error"
        and "unknown provider `nope`" in summary["results"][2]["error"]
    )
    assert "1 failed task" in result.stderr.decode()


async def test_parallel_reads_stdin(run_cli: Callable) -> None:
    result = await run_cli("parallel", "--json", "-", stdin=json.dumps(["x", "y"]).encode())
    assert result.returncode == 0, result.stderr
    assert [r["output"] for r in json.loads(result.stdout)["results"]] == ["x", "y"]


async def test_parallel_rejects_bad_input(run_cli: Callable) -> None:
    result = await run_cli("parallel", "--json", '[{"prompt": ""}]')
    assert result.returncode == 2 and "empty prompt" in result.stderr.decode()


async def test_tool_runs_allowed_tools_and_fails_closed(run_cli: Callable, tmp_path: Path) -> None:
    (tmp_path / "ws" / "a.txt").write_text("cli read")
    ok = await run_cli("tool", "--json", json.dumps({"tool": "read", "args": {"path": "a.txt"}}))
    assert ok.returncode == 0, ok.stderr
    body = json.loads(ok.stdout)
    assert "cli read" in body["output"] and isinstance(body["metadata"], dict)
    ask = await run_cli(
        "tool", "--json", json.dumps({"tool": "write", "args": {"path": "b.txt", "content": "x"}})
    )
    assert ask.returncode != 0
    assert "requires approval; non-interactive CLI dispatch fails closed" in ask.stderr.decode()
    assert not (tmp_path / "ws" / "b.txt").exists()
    missing = await run_cli("tool", "--json", "{}")
    assert missing.returncode == 2 and "tool is required" in missing.stderr.decode()
