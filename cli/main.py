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
    finally:
        # Every command but `serve` resumes here; `serve` pauses again until the
        # engine is ready.
        heap.settle()
    cli(_anyio_backend="trio")
