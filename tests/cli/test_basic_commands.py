from __future__ import annotations

import json
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import trio

import svc


async def test_version(run_cli: Callable) -> None:
    result = await run_cli("--version")
    assert result.returncode == 0
    assert svc.__version__ in result.stdout.decode()


async def test_token_generate_prints_a_fresh_token(run_cli: Callable) -> None:
    first = (await run_cli("token", "generate")).stdout.decode().strip()
    second = (await run_cli("token", "generate")).stdout.decode().strip()
    assert re.fullmatch(r"tk_[0-9a-f]{32}", first)
    assert first != second


async def test_providers_lists_local_then_the_twelve_ids_marking_configured_ones(
    run_cli: Callable,
) -> None:
    result = await run_cli("providers", env={"GROQ_API_KEY": "gsk-test-1234"})
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode().splitlines()
    assert out[0] == "Supported providers (* configured):"
    rows = [(line[0], line[2:].split()[0]) for line in out[1:14]]
    assert [pid for _, pid in rows] == [
        "local",
        "openai",
        "openrouter",
        "anthropic",
        "ollama",
        "groq",
        "mistral",
        "together",
        "azure",
        "bedrock",
        "vertex",
        "copilot",
        "cohere",
    ]
    assert {pid for mark, pid in rows if mark == "*"} == {"local", "groq"}
    assert "offline echo model" in out[1]
    assert "set OPENAI_API_KEY" in out[2] and "set OLLAMA_URL" in out[5]
    assert out[-1] == "Default: groq/llama-3.1-8b-instant (the first configured provider)"


async def test_providers_with_nothing_configured_says_the_echo_model_answers(
    run_cli: Callable,
) -> None:
    result = await run_cli("providers")
    assert result.stdout.decode().splitlines()[-1] == (
        "Default: local/echo-1 (no provider configured)"
    )
    assert "no model provider is configured" in result.stderr.decode()


async def test_status_fails_when_the_engine_is_down(run_cli: Callable) -> None:
    result = await run_cli("status", "--port", "9")
    assert result.returncode != 0
    assert "health check failed" in result.stderr.decode()


async def test_serve_refuses_a_public_bind_without_a_token(run_cli: Callable) -> None:
    result = await run_cli("serve", "--hostname", "0.0.0.0", "--port", "0")
    assert result.returncode == 2
    assert "without an API token" in result.stderr.decode()


async def test_serve_says_once_that_the_echo_model_answers(served: Callable) -> None:
    server = await served()
    text = "\n".join(server.stderr_lines)
    assert "svc-engine default model: local/echo-1 (no provider configured)" in text
    assert text.count("no model provider is configured") == 1
    assert "OPENAI_API_KEY" in text and "OLLAMA_URL=" in text
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        effective = (await client.get("/config/providers")).json()["effective"]
    assert effective["provider"] == "local" and effective["reason"] == "fallback"
    assert effective["model"] == "echo-1" and "OPENAI_API_KEY" in effective["notice"]


async def test_serve_names_the_configured_default_and_quiet_says_nothing(
    served: Callable,
) -> None:
    server = await served("--quiet", env={"OPENAI_API_KEY": "sk-serve-1234"})
    assert not any("default model" in line for line in server.stderr_lines)
    loud = await served(env={"OPENAI_API_KEY": "sk-serve-1234"})
    text = "\n".join(loud.stderr_lines)
    assert "default model: openai/gpt-5.2 (the first configured provider)" in text
    assert "no model provider is configured" not in text


async def test_serve_then_status_then_sigterm_exits_zero(
    served: Callable, run_cli: Callable
) -> None:
    server = await served()
    status = await run_cli("status", "--port", str(server.port))
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["ready"] is True
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=30) as client,
        client.stream("GET", "/event") as stream,
    ):
        server.process.send_signal(signal.SIGTERM)
        # The open stream ends cleanly instead of holding the shutdown.
        with trio.fail_after(30):
            async for _ in stream.aiter_bytes():
                pass
    with trio.fail_after(30):
        await server.process.wait()
    assert server.process.returncode == 0


async def test_serve_with_token_requires_it(served: Callable) -> None:
    server = await served("--api-token", "tk_" + "a" * 32)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        assert (await client.get("/global/health")).status_code == 200
        assert (await client.get("/config/providers")).status_code == 401
        ok = await client.get("/config/providers", headers={"X-Svc-Token": "tk_" + "a" * 32})
        assert ok.status_code == 200


async def test_sigint_also_shuts_down_cleanly(served: Callable) -> None:
    server = await served()
    server.process.send_signal(signal.SIGINT)
    with trio.fail_after(30):
        await server.process.wait()
    assert server.process.returncode == 0


async def test_the_embedding_example_runs(cli_env: dict[str, str]) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "embed.py"
    with trio.fail_after(120):
        result = await trio.run_process(
            [sys.executable, str(example)],
            env=cli_env,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
    assert result.returncode == 0, result.stderr.decode()
    out = result.stdout.decode()
    assert "in-process events: ['example.hello']" in out
    assert "run: completed reply: hello from Python" in out
    assert "run finished events: 1" in out
    assert "'ready': True" in out
