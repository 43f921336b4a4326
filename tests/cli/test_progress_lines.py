"""``memory import`` progress on a stream that is not a terminal."""

from __future__ import annotations

import io

from cli.memory import ProgressLines
from svc.memory import ImportProgress


def test_a_line_per_n_files_or_per_interval_and_always_the_last() -> None:
    clock = [0.0]
    stream = io.StringIO()
    lines = ProgressLines(stream, now=lambda: clock[0], every=100, interval=1.0)
    for done in range(1, 251):
        if done == 120:
            clock[0] = 1.5  # a slow file: a line for time, not count
        lines(ImportProgress(done, 250, f"n{done}.md"))
    lines.close()
    assert stream.getvalue().splitlines() == [
        "importing: 100/250 files (n100.md)",
        "importing: 120/250 files (n120.md)",
        "importing: 220/250 files (n220.md)",
        "importing: 250/250 files (n250.md)",
    ]


def test_nothing_when_nothing_was_imported() -> None:
    stream = io.StringIO()
    ProgressLines(stream).close()
    assert stream.getvalue() == ""
