"""``svc-engine memory import``: import notes into memory without a running engine.

The command opens the state directory's database itself (``svc.db``; SQLite in
WAL mode, so this is safe next to a running engine), imports, and prints a
JSON summary. A progress bar goes to standard error, and only when standard
error is a terminal, so piped or captured output stays clean.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import asyncclick as click

from svc.errors import SvcError, ValidationFailed
from svc.memory import FORMATS, TIERS

from .common import fail, load_settings, print_json

# The engine (for its database file name) and the import machinery are imported
# by the command: listing it (`--help`) loads only what its options show.
if TYPE_CHECKING:
    from svc.memory import ImportProgress

BAR_WIDTH = 30


class ProgressBar:
    """``[#####.....] 64/130 notes/a.md`` redrawn in place on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.drawn = False

    def __call__(self, step: ImportProgress) -> None:
        filled = BAR_WIDTH * step.done // max(step.total, 1)
        name = (step.path or "")[-40:]
        line = f"\rimporting [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {step.done}/{step.total} {name}"
        self.stream.write(line.ljust(BAR_WIDTH + 60))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


@click.group()
async def memory() -> None:
    """Memory: import notes."""


@memory.command("import")
@click.option(
    "--path", "path", required=True, type=click.Path(path_type=Path), help="Directory to import."
)
@click.option(
    "--format", "fmt", default="directory", show_default=True, help=f"One of: {', '.join(FORMATS)}."
)
@click.option("--tier", default="global", show_default=True, help=f"One of: {', '.join(TIERS)}.")
@click.option("--project-id", default=None, help="The project (required for --tier project).")
@click.option("--session-id", default=None, help="The session (required for --tier session).")
@click.option(
    "--sync-deletes", is_flag=True, help="Remove the records of files that no longer exist."
)
@click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, help="Where state lives."
)
async def memory_import(
    path: Path,
    fmt: str,
    tier: str,
    project_id: str | None,
    session_id: str | None,
    sync_deletes: bool,
    state_dir: Path | None,
) -> None:
    """Import Markdown and text notes; prints a JSON summary."""
    from svc.clock import SystemClock
    from svc.memory import Importer, ImportRequest, MemoryStore
    from svc.store import open_store

    if fmt not in FORMATS:
        fail(f"unsupported memory import format `{fmt}` (use {' or '.join(FORMATS)})", 2)
    if tier not in TIERS:
        fail(f"unsupported memory tier `{tier}` (use {', '.join(TIERS)})", 2)
    if tier == "project" and not project_id:
        fail("--project-id is required with --tier project", 2)
    if tier == "session" and not session_id:
        fail("--session-id is required with --tier session", 2)
    settings = load_settings(state_dir=state_dir)
    request = ImportRequest(
        path=path,
        format=fmt,
        tier=tier,
        project_id=project_id,
        session_id=session_id,
        sync_deletes=sync_deletes,
    )
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    root = settings.resolved_state_dir
    try:
        root.mkdir(parents=True, exist_ok=True)
        async with open_store(None, state_dir=root) as db:
            try:
                summary = await Importer(MemoryStore(db), SystemClock().now_ms).run(
                    request, progress=bar
                )
            finally:
                if bar is not None:
                    bar.close()
    except ValidationFailed as exc:
        fail(exc.message, 2)
    except SvcError as exc:
        fail(exc.message)
    except OSError as exc:
        fail(f"cannot open the state directory {root}: {exc.strerror}")
    print_json(summary.to_wire())
