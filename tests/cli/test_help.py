"""Every command's ``--help`` shows one example; fixed sets of values are listed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

COMMANDS = [
    (),
    ("serve",),
    ("status",),
    ("run",),
    ("parallel",),
    ("tool",),
    ("token",),
    ("token", "generate"),
    ("providers",),
    ("chat",),
    ("memory",),
    ("memory", "import"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "svc-engine")
async def test_help_has_one_example(run_cli: Callable, command: tuple[str, ...]) -> None:
    result = await run_cli(*command, "--help")
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert text.count("Example:") == 1
    example = text.split("Example:", 1)[1].strip().splitlines()[0]
    assert example.startswith("svc-engine") or "svc-engine" in example


async def test_run_help_lists_state_dir_and_quiet(run_cli: Callable) -> None:
    text = (await run_cli("run", "--help")).stdout.decode()
    assert "--state-dir" in text and "--quiet" in text


async def test_parallel_concurrency_is_a_range(run_cli: Callable) -> None:
    text = (await run_cli("parallel", "--help")).stdout.decode()
    assert "1<=x<=32" in text
