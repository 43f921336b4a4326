"""``svc-engine memory import`` in a real subprocess, on the state directory's database."""

from __future__ import annotations

import errno
import json
import os
import pty
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from tests.cli.conftest import SCRIPT


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "ops").mkdir(parents=True)
    (root / "ops" / "runbook.md").write_text(
        "# Restart\n\nRestart the ingest worker with systemctl."
    )
    (root / "billing.txt").write_text("Invoices close on the 25th.")
    (root / "script.sh").write_text("echo not a note")
    return root


def summary(result: Any) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(result.stdout)


async def test_import_prints_a_json_summary_and_skips_unchanged_files(
    run_cli: Callable, notes: Path
) -> None:
    first = summary(await run_cli("memory", "import", "--json", "--path", str(notes)))
    assert first["ok"] is True and first["format"] == "directory" and first["tier"] == "global"
    assert (first["discovered_files"], first["indexed_files"], first["chunks_created"]) == (2, 2, 2)
    second = summary(await run_cli("memory", "import", "--json", "--path", str(notes)))
    assert (second["indexed_files"], second["skipped_files"]) == (0, 2)


async def test_sync_deletes_removes_vanished_files(run_cli: Callable, notes: Path) -> None:
    summary(
        await run_cli(
            "memory",
            "import",
            "--json",
            "--path",
            str(notes),
            "--tier",
            "project",
            "--project-id",
            "ops",
        )
    )
    (notes / "billing.txt").unlink()
    synced = summary(
        await run_cli(
            "memory",
            "import",
            "--json",
            "--path",
            str(notes),
            "--tier",
            "project",
            "--project-id",
            "ops",
            "--sync-deletes",
        )
    )
    assert (synced["deleted_files"], synced["sync_deletes"], synced["project_id"]) == (
        1,
        True,
        "ops",
    )


async def test_openclaw_format(run_cli: Callable, tmp_path: Path) -> None:
    root = tmp_path / "claw"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("Long-term memory.")
    (root / "memory" / "2024-01-01.md").write_text("Daily note.")
    (root / "README.md").write_text("not part of openclaw memory")
    body = summary(
        await run_cli(
            "memory",
            "import",
            "--json",
            "--path",
            str(root),
            "--format",
            "openclaw",
            "--tier",
            "session",
            "--session-id",
            "s-1",
        )
    )
    assert (body["discovered_files"], body["tier"], body["session_id"]) == (2, "session", "s-1")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--tier", "project"), "--project-id is required with --tier project"),
        (("--tier", "session"), "--session-id is required with --tier session"),
        (("--format", "zip"), "'zip' is not one of 'directory', 'openclaw'"),
        (("--tier", "team"), "'team' is not one of 'global', 'project', 'session'"),
    ],
)
async def test_bad_flags_exit_2_with_a_clear_error(
    run_cli: Callable, notes: Path, args: tuple[str, ...], message: str
) -> None:
    result = await run_cli("memory", "import", "--json", "--path", str(notes), *args)
    assert result.returncode == 2
    assert message in result.stderr.decode() and result.stdout == b""


async def test_a_missing_directory_and_an_empty_one_fail_clearly(
    run_cli: Callable, tmp_path: Path
) -> None:
    missing = await run_cli("memory", "import", "--json", "--path", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "is not a directory" in missing.stderr.decode()
    (tmp_path / "empty").mkdir()
    empty = await run_cli("memory", "import", "--json", "--path", str(tmp_path / "empty"))
    assert (
        empty.returncode == 1
        and "no importable files found for format=directory" in empty.stderr.decode()
    )


async def test_progress_lines_and_a_readable_summary_when_not_on_a_terminal(
    run_cli: Callable, notes: Path
) -> None:
    result = await run_cli("memory", "import", "--path", str(notes))
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().splitlines()[-1].startswith("importing: 2/2 files")
    assert "\r" not in result.stderr.decode()
    assert result.stdout.decode() == (
        "imported 2 files into the global tier: indexed 2, skipped 0 unchanged; 2 chunks created\n"
    )


async def test_import_help_lists_the_choices(run_cli: Callable) -> None:
    text = (await run_cli("memory", "import", "--help")).stdout.decode()
    assert "[directory|openclaw]" in text and "[global|project|session]" in text
    assert "Example:" in text


async def test_a_progress_bar_on_a_terminal_and_clean_json_on_stdout(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    notes = tmp_path / "many"
    notes.mkdir()
    for i in range(130):
        (notes / f"n{i:03}.md").write_text(f"note number {i}")
    master, slave = pty.openpty()
    try:
        with trio.fail_after(120):
            result = await trio.run_process(
                [SCRIPT, "memory", "import", "--json", "--path", str(notes)],
                env=cli_env,
                capture_stdout=True,
                stderr=slave,
                cwd=str(tmp_path / "ws"),
            )
        os.close(slave)
        slave = -1
        terminal = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError as exc:  # EIO: the terminal's other end is closed and drained
                assert exc.errno == errno.EIO
                break
            if not chunk:
                break
            terminal += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    assert result.returncode == 0
    assert json.loads(result.stdout)["indexed_files"] == 130
    text = terminal.decode()
    assert "importing [" in text and "64/130" in text and "130/130" in text
    assert "#" * 30 in text


async def test_an_import_next_to_a_running_engine_is_searchable_there(
    served: Callable, run_cli: Callable, notes: Path
) -> None:
    server = await served()
    body = summary(
        await run_cli(
            "memory",
            "import",
            "--json",
            "--path",
            str(notes),
            "--tier",
            "project",
            "--project-id",
            "ops",
        )
    )
    assert body["indexed_files"] == 2
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        found = (
            await client.post(
                "/memory/search", json={"query": "ingest worker", "project_id": "ops"}
            )
        ).json()
    assert [r["metadata"]["path"] for r in found["results"]] == ["ops/runbook.md"]
    assert found["results"][0]["tier"] == "project"


async def test_state_dir_flag_picks_the_database(
    run_cli: Callable, notes: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    first = summary(
        await run_cli(
            "memory", "import", "--json", "--path", str(notes), "--state-dir", str(elsewhere)
        )
    )
    assert first["indexed_files"] == 2
    assert (elsewhere / "svc.db").is_file() and not (tmp_path / "state" / "svc.db").exists()
    again = summary(
        await run_cli(
            "memory", "import", "--json", "--path", str(notes), "--state-dir", str(elsewhere)
        )
    )
    assert (again["indexed_files"], again["skipped_files"]) == (0, 2)
    fresh = summary(
        await run_cli("memory", "import", "--json", "--path", str(notes))
    )  # the environment's state dir
    assert fresh["indexed_files"] == 2
