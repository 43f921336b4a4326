"""The console-script entry point of ``svc-engine``.

Light on purpose: the command modules (and with them the engine) are imported
inside :func:`main`, with collection paused (see :mod:`cli.heap`).
"""

from __future__ import annotations

from . import heap


def main() -> None:
    heap.pause_collection()
    try:
        from .commands import cli

        # The group resumes collection before any command but `serve` runs (after the
        # event loop and the command's module are imported); `serve` resumes it once the
        # engine is ready.
        cli(_anyio_backend="trio")
    finally:
        heap.settle()
