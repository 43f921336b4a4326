"""The bash tool: what the model sees, and the arguments it may pass."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import trio

from svc.errors import ValidationFailed
from svc.tools import PathOutsideWorkspace, ToolContext
from svc.tools.builtin import BashTool

if TYPE_CHECKING:
    from tests.svc.tools.conftest import PidPipe, ProcessWatch

bash = BashTool()


async def test_combined_output(workspace: Path, ctx: ToolContext) -> None:
    result = await bash.execute({"command": "echo hello; echo oops >&2"}, ctx)
    assert result.output == "hello\noops"
    assert result.metadata == {"exit_code": 0, "timed_out": False, "truncated": False}


async def test_non_zero_exit_code_ends_the_output(ctx: ToolContext) -> None:
    result = await bash.execute({"command": "echo failing; exit 7"}, ctx)
    assert result.output == "failing\n[exit code 7]"
    assert result.metadata["exit_code"] == 7


async def test_no_output(ctx: ToolContext) -> None:
    assert (await bash.execute({"command": "true"}, ctx)).output == "(no output)"
    assert (await bash.execute({"command": "exit 2"}, ctx)).output == "[exit code 2]"


async def test_runs_in_the_effective_cwd(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    result = await bash.execute(
        {"command": "pwd; ls"}, ToolContext(workspace=workspace, cwd=workspace / "sub")
    )
    assert result.output == str((workspace / "sub").resolve())


async def test_cwd_must_be_inside_the_workspace(tmp_path: Path, workspace: Path) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await bash.execute({"command": "pwd"}, ToolContext(workspace=workspace, cwd=tmp_path))


async def test_output_cap_is_noted(ctx: ToolContext) -> None:
    result = await bash.execute({"command": "head -c 250000 /dev/zero | tr '\\0' b"}, ctx)
    assert result.metadata["truncated"] is True
    body, note = result.output.rsplit("\n", 1)
    assert body == "b" * 100_000
    assert note == "[output truncated: 250000 bytes, first 100000 shown]"


async def test_timeout_is_reported_and_kills_children(
    ctx: ToolContext, pid_pipe: PidPipe, process_watch: ProcessWatch
) -> None:
    results = []

    async def run() -> None:
        command = f"echo before; sleep 600 & echo $$ $! > {pid_pipe.path}; wait"
        results.append(await bash.execute({"command": command, "timeout_ms": 1500}, ctx))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        process_watch.watch(*await pid_pipe.read())
    [result] = results
    assert (
        result.output
        == "before\n[command timed out after 1500 ms; it and its child processes were killed]"
    )
    assert result.metadata == {"exit_code": None, "timed_out": True, "truncated": False}
    await process_watch.all_exited()


async def test_cancelled_call_leaves_no_process(
    ctx: ToolContext, pid_pipe: PidPipe, process_watch: ProcessWatch
) -> None:
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                bash.execute, {"command": f"sleep 600 & echo $$ $! > {pid_pipe.path}; wait"}, ctx
            )
            process_watch.watch(*await pid_pipe.read())
            nursery.cancel_scope.cancel()
    await process_watch.all_exited()


@pytest.mark.parametrize(
    ("args", "field"),
    [({}, "args.command"), ({"command": ""}, "args.command"),
     ({"command": "x", "timeout_ms": 600_001}, "args.timeout_ms"),
     ({"command": "x", "timeout_ms": 0}, "args.timeout_ms"),
     ({"command": "x", "timeout_ms": "5"}, "args.timeout_ms")],
)  # fmt: skip
async def test_bad_arguments(ctx: ToolContext, args: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        await bash.execute(args, ctx)
    assert info.value.extra["field"] == field
