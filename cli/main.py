"""The console-script entry point of ``svc-engine``.

Light on purpose: the command modules (and with them the engine) are imported
inside :func:`main`, with collection paused (see :mod:`cli.heap`).
"""

from __future__ import annotations

from . import heap


def main() -> None:
    heap.pause_collection()
    try:
        import trio

        from .commands import cli

        # The group resumes collection before any command but `serve` runs (after the
        # command's module is imported); `serve` resumes it once the engine is ready.
        # trio.run directly, as asyncclick itself does without anyio: going through
        # anyio.run cost start-up its trio backend (some thirty modules) for nothing.
        trio.run(cli.main)
    finally:
        heap.settle()
