"""``svc-engine chat`` against a real engine whose model is scripted.

Through a pseudo-terminal (streamed answer, an approval answered inline, Ctrl-C
cancelling a run, resume with ``--session``) and through a pipe.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.cli._terminal import open_terminal
from tests.cli.conftest import SCRIPT
from tests.fakes.turns import FakeToolCall, Turn


@pytest.fixture
def model_config(tmp_path: Path, fake_model: Any) -> Path:
    config = tmp_path / "ws" / ".svc" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "default_provider": "openai",
                "providers": {
                    "openai": {
                        "url": fake_model.url,
                        "api_key": "sk-chat-test",
                        "default_model": "fake-model",
                    }
                },
            }
        )
    )
    return config


def chat_argv(port: int, *extra: str) -> list[str]:
    return [SCRIPT, "chat", "--port", str(port), *extra]


async def test_chat_in_a_terminal_streams_asks_inline_cancels_and_resumes(
    served: Callable,
    model_config: Path,
    fake_model: Any,
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    server = await served()
    held, never = trio.Event(), trio.Event()
    fake_model.enqueue(
        Turn.reply("Streaming first words, then the rest.", gate=held, gate_after=2),
        Turn.calls(FakeToolCall("write", {"path": "note.txt", "content": "hi"}), text="Writing."),
        Turn.reply("The file is written."),
        Turn.reply("This answer never ends", gate=never, gate_after=1),
    )
    try:
        async with open_terminal(chat_argv(server.port), env=cli_env, cwd=tmp_path / "ws") as term:
            await term.expect("model openai/fake-model")
            await term.expect("> ")
            term.type("tell me something\r")
            session_line = await term.expect("(resume with")
            session_id = re.search(r"session (\S+) \(resume with", session_line).group(1)
            # The first words show while the model still holds the rest: it streams.
            await term.expect("Streaming first")
            held.set()
            await term.expect("then the rest.")

            await term.expect("> ")
            term.type("write a note\r")
            await term.expect("[write note.txt]")
            await term.expect("Allow write note.txt? [y]es once, [a]lways, [n]o: ")
            term.type("y\r")
            await term.expect("done: ")
            await term.expect("The file is written.")
            assert (tmp_path / "ws" / "note.txt").read_text() == "hi"

            await term.expect("> ")
            term.type("never mind\r")
            await term.expect("This ")
            term.type("\x03")
            await term.expect("[run cancelled]")
            term.type("\x03")  # a second Ctrl-C leaves
            with trio.fail_after(30):
                await term.process.wait()
            assert term.process.returncode == 0
    finally:
        never.set()

    history = (tmp_path / "state" / "chat_history").read_text()
    assert "tell me something" in history and "never mind" in history

    fake_model.enqueue(Turn.reply("Welcome back."))
    async with open_terminal(
        chat_argv(server.port, "--session", session_id), env=cli_env, cwd=tmp_path / "ws"
    ) as term:
        await term.expect(f"resumed session {session_id}")
        term.type("again\r")
        await term.expect("Welcome back.")
        term.type("/quit\r")
        with trio.fail_after(30):
            await term.process.wait()
        assert term.process.returncode == 0
    # The resumed session's transcript reached the model.
    sent = json.dumps(fake_model.requests[-1].body["messages"])
    assert "tell me something" in sent and "again" in sent


async def test_chat_through_a_pipe(served: Callable, run_cli: Callable) -> None:
    server = await served()
    result = await run_cli(
        "chat", "--port", str(server.port), stdin=b"hello from a pipe\n/sessions\n"
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert "model local/echo-1" in out and "no model provider is configured" in out
    assert "\nhello from a pipe\n" in out
    assert re.search(r"^\* \S+  chat$", out, re.MULTILINE)


async def test_chat_needs_a_token_when_the_engine_does(served: Callable, run_cli: Callable) -> None:
    token = "tk_" + "c" * 32
    server = await served("--api-token", token)
    refused = await run_cli("chat", "--port", str(server.port), stdin=b"hi\n")
    assert refused.returncode == 1
    assert "pass --token or set SVC_API_TOKEN" in refused.stderr.decode()
    accepted = await run_cli(
        "chat", "--port", str(server.port), stdin=b"hi\n", env={"SVC_API_TOKEN": token}
    )
    assert accepted.returncode == 0, accepted.stderr
    assert "\nhi\n" in accepted.stdout.decode()


async def test_chat_says_when_the_engine_is_down(run_cli: Callable) -> None:
    result = await run_cli("chat", "--port", "9", stdin=b"hi\n")
    assert result.returncode == 1
    assert "start it with `svc-engine serve`" in result.stderr.decode()


async def test_chat_resume_of_an_unknown_session_exits_2(
    served: Callable, run_cli: Callable
) -> None:
    server = await served()
    result = await run_cli("chat", "--port", str(server.port), "--session", "nope", stdin=b"")
    assert result.returncode == 2
    assert "no session `nope`" in result.stderr.decode()
