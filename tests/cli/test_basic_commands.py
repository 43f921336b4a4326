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


async def test_providers_lists_the_twelve_ids(run_cli: Callable) -> None:
    out = (await run_cli("providers")).stdout.decode().splitlines()
    assert out[0] == "Supported providers:"
    assert [line.strip(" -") for line in out[1:]] == [
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


async def test_chat_is_planned(run_cli: Callable) -> None:
    result = await run_cli("chat")
    assert result.returncode == 0
    assert "planned" in result.stdout.decode()


async def test_status_fails_when_the_engine_is_down(run_cli: Callable) -> None:
    result = await run_cli("status", "--port", "9")
    assert result.returncode != 0
    assert "health check failed" in result.stderr.decode()


async def test_serve_refuses_a_public_bind_without_a_token(run_cli: Callable) -> None:
    result = await run_cli("serve", "--hostname", "0.0.0.0", "--port", "0")
    assert result.returncode == 2
    assert "without an API token" in result.stderr.decode()


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
