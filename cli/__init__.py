"""The ``svc-engine`` command line (asyncclick on trio)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .main import main

if TYPE_CHECKING:
    from .commands import cli


def __getattr__(name: str) -> Any:
    # The command group imports the engine; the entry point must not pay for it
    # before it has paused the collector (cli.heap).
    if name == "cli":
        from .commands import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["cli", "main"]
