"""The collector policy of the console script (cli.heap).

Paused while starting, then frozen and resumed.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from cli import heap


@pytest.fixture
def collector() -> Iterator[None]:
    """Leave the test process's collector as it was found."""
    assert gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.enable()


def test_settle_freezes_what_was_built_and_resumes_once(collector: None) -> None:
    heap.pause_collection()
    assert not gc.isenabled()
    heap.settle()
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    heap.settle()  # already settled: nothing more is frozen
    assert gc.get_freeze_count() == frozen


def test_the_entry_point_imports_nothing_before_pausing() -> None:
    # The console script imports cli.main before calling main(): anything heavy
    # imported there would be built with the collector still running.
    probe = (
        "import sys, cli, cli.main; "
        "print(sorted({m.split('.')[0] for m in sys.modules}"
        " & {'svc', 'asyncclick', 'trio', 'httpx'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "[]"


async def test_serve_keeps_collection_paused_until_the_engine_is_ready(
    collector: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.commands import cli

    seen: list[bool] = []
    settled = trio.Event()
    real_settle = heap.settle

    def settle() -> None:
        seen.append(gc.isenabled())
        real_settle()
        settled.set()

    monkeypatch.setattr(heap, "settle", settle)
    monkeypatch.setenv("SVC_WORKSPACE", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: cli.main(
                ["serve", "--port", "0", "--state-dir", str(tmp_path / "state")],
                standalone_mode=False,
            )
        )
        await settled.wait()
        assert seen == [False] and gc.isenabled()
        nursery.cancel_scope.cancel()


async def test_other_commands_resume_collection_before_they_run(collector: None) -> None:
    from cli.commands import cli

    heap.pause_collection()  # as main() does
    await cli.main(["providers"], standalone_mode=False)
    assert gc.isenabled()
