"""run_shell: deadline, output cap, and no process left behind."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import trio

from svc.tools import ToolFailed
from svc.tools.shell import ShellResult, run_shell

if TYPE_CHECKING:  # fixture types only; pytest loads the conftest itself
    from tests.svc.tools.conftest import PidPipe, ProcessWatch


async def test_output_and_exit_code(tmp_path: Path) -> None:
    result = await run_shell("echo out; echo err >&2; exit 3", cwd=tmp_path, time_limit=30)
    assert result == ShellResult(
        output=b"out\nerr\n", exit_code=3, timed_out=False, truncated=False, total_bytes=8
    )


async def test_runs_in_cwd_with_stdin_closed(tmp_path: Path) -> None:
    result = await run_shell("pwd; cat; echo done", cwd=tmp_path, time_limit=30)
    assert result.output.decode().splitlines() == [str(tmp_path), "done"]


async def test_output_cap(tmp_path: Path) -> None:
    result = await run_shell(
        "head -c 300000 /dev/zero | tr '\\0' a", cwd=tmp_path, time_limit=30, output_cap=1000
    )
    assert result.output == b"a" * 1000
    assert result.truncated is True
    assert result.total_bytes == 300_000
    assert result.exit_code == 0


async def test_timeout_kills_the_whole_process_group(
    tmp_path: Path, pid_pipe: PidPipe, process_watch: ProcessWatch
) -> None:
    results: list[ShellResult] = []

    async def run() -> None:
        command = f"sleep 600 & echo $$ $! > {pid_pipe.path}; wait"
        results.append(await run_shell(command, cwd=tmp_path, time_limit=2.0))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        process_watch.watch(*await pid_pipe.read())
    [result] = results
    assert result.timed_out is True
    assert result.exit_code is None
    await process_watch.all_exited()  # the shell and its background sleep


async def test_cancelled_caller_leaves_no_process(
    tmp_path: Path, pid_pipe: PidPipe, process_watch: ProcessWatch
) -> None:
    finished = False
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:

            async def run() -> None:
                nonlocal finished
                await run_shell(
                    f"sleep 600 & echo $$ $! > {pid_pipe.path}; wait", cwd=tmp_path, time_limit=600
                )
                finished = True

            nursery.start_soon(run)
            process_watch.watch(*await pid_pipe.read())
            nursery.cancel_scope.cancel()
    assert not finished
    await process_watch.all_exited()


async def test_background_jobs_do_not_outlive_the_command(
    tmp_path: Path, pid_pipe: PidPipe, process_watch: ProcessWatch
) -> None:
    with trio.fail_after(30):
        result = await run_shell(
            f"sleep 600 & echo $! > {pid_pipe.path}; echo started", cwd=tmp_path, time_limit=600
        )
    assert result.output == b"started\n"
    assert result.exit_code == 0 and not result.timed_out
    process_watch.watch(*await pid_pipe.read())
    await process_watch.all_exited()


async def test_a_missing_cwd_is_a_clear_failure(tmp_path: Path) -> None:
    with pytest.raises(ToolFailed, match="cannot start the command"):
        await run_shell("true", cwd=tmp_path / "missing", time_limit=30)
