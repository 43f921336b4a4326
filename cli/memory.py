"""``svc-engine memory import``: import notes into memory without a running engine.

The command opens the state directory's database itself (``svc.db``; SQLite in
WAL mode, so this is safe next to a running engine), imports, and prints a
summary (``--json``: the JSON summary). Progress goes to standard error: a bar
redrawn in place on a terminal, else a line every :data:`LINE_EVERY_FILES` files
or :data:`LINE_EVERY_SECONDS` seconds, so a log or CI job sees the import move.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import asyncclick as click

from svc.errors import SvcError, ValidationFailed
from svc.memory import FORMATS, TIERS

from .common import fail, load_settings, print_json

# The engine (for its database file name) and the import machinery are imported
# by the command: listing it (`--help`) loads only what its options show.
if TYPE_CHECKING:
    from svc.memory import ImportProgress

BAR_WIDTH = 30
LINE_EVERY_FILES = 100
LINE_EVERY_SECONDS = 1.0


class ProgressBar:
    """``[#####.....] 64/130 notes/a.md`` redrawn in place on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.drawn = False

    def __call__(self, step: ImportProgress) -> None:
        filled = BAR_WIDTH * step.done // max(step.total, 1)
        name = (step.path or "")[-40:]
        bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}]"
        line = f"\rimporting {bar} {step.done}/{step.total} {name}"
        self.stream.write(line.ljust(BAR_WIDTH + 60))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


class ProgressLines:
    """``importing: 200/1300 files (notes/a.md)``, one line per ``every`` files or ``interval``.

    For a stream that is not a terminal (a log, a pipe): no carriage returns,
    and few enough lines to read. The last step always gets its line.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        now: Callable[[], float] = time.monotonic,
        every: int = LINE_EVERY_FILES,
        interval: float = LINE_EVERY_SECONDS,
    ) -> None:
        self.stream = stream
        self.now = now
        self.every = every
        self.interval = interval
        self._last_done = 0
        self._last_at = now()
        self._pending: ImportProgress | None = None

    def __call__(self, step: ImportProgress) -> None:
        at = self.now()
        if step.done - self._last_done >= self.every or at - self._last_at >= self.interval:
            self._write(step, at)
        else:
            self._pending = step

    def _write(self, step: ImportProgress, at: float) -> None:
        where = f" ({step.path})" if step.path else ""
        self.stream.write(f"importing: {step.done}/{step.total} files{where}\n")
        self.stream.flush()
        self._last_done, self._last_at, self._pending = step.done, at, None

    def close(self) -> None:
        if self._pending is not None:
            self._write(self._pending, self.now())


def _human_summary(wire: dict[str, Any]) -> str:
    parts = [
        f"indexed {wire.get('indexed_files', 0)}",
        f"skipped {wire.get('skipped_files', 0)} unchanged",
    ]
    if wire.get("deleted_files"):
        parts.append(f"deleted {wire['deleted_files']}")
    return (
        f"imported {wire.get('discovered_files', 0)} files into the {wire.get('tier')} tier: "
        f"{', '.join(parts)}; {wire.get('chunks_created', 0)} chunks created"
    )


@click.group()
async def memory() -> None:
    """Memory: import notes.

    \b
    Example:
      svc-engine memory import --path ~/notes
    """


@memory.command("import")
@click.option(
    "--path", "path", required=True, type=click.Path(path_type=Path), help="Directory to import."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="directory",
    show_default=True,
    help="Layout of the directory.",
)
@click.option(
    "--tier",
    type=click.Choice(TIERS),
    default="global",
    show_default=True,
    help="Memory tier the notes go to.",
)
@click.option("--project-id", default=None, help="The project (required for --tier project).")
@click.option("--session-id", default=None, help="The session (required for --tier session).")
@click.option(
    "--sync-deletes", is_flag=True, help="Remove the records of files that no longer exist."
)
@click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, help="Where state lives."
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
async def memory_import(
    path: Path,
    fmt: str,
    tier: str,
    project_id: str | None,
    session_id: str | None,
    sync_deletes: bool,
    state_dir: Path | None,
    as_json: bool,
) -> None:
    """Import Markdown and text notes; prints a summary (--json: as JSON).

    \b
    Example:
      svc-engine memory import --path ./runbooks --tier project --project-id ops --json
    """
    from svc.clock import SystemClock
    from svc.memory import Importer, ImportRequest, MemoryStore
    from svc.store import open_store

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
    progress: ProgressBar | ProgressLines = (
        ProgressBar(sys.stderr) if sys.stderr.isatty() else ProgressLines(sys.stderr)
    )
    root = settings.resolved_state_dir
    try:
        root.mkdir(parents=True, exist_ok=True)
        async with open_store(None, state_dir=root) as db:
            try:
                summary = await Importer(MemoryStore(db), SystemClock().now_ms).run(
                    request, progress=progress
                )
            finally:
                progress.close()
    except ValidationFailed as exc:
        fail(exc.message, 2)
    except SvcError as exc:
        fail(exc.message)
    except OSError as exc:
        fail(f"cannot open the state directory {root}: {exc.strerror}")
    wire = summary.to_wire()
    if as_json:
        print_json(wire)
    else:
        click.echo(_human_summary(wire))
