"""``svc-engine``: the command group.

A command's module is imported when the command is looked up (to run it, or to
list it in ``--help``), so ``--version``, ``status`` and ``token`` do not import
what ``serve`` or ``memory import`` need.
"""

from __future__ import annotations

import importlib

import asyncclick as click

from svc import __version__

from . import heap

# Command name -> "module:attribute" (modules relative to this package).
COMMANDS = {
    "serve": ".serve:serve",
    "status": ".basic:status",
    "run": ".models:run",
    "parallel": ".models:parallel",
    "tool": ".tool:tool",
    "token": ".basic:token",
    "providers": ".basic:providers",
    "chat": ".chat:chat",
    "memory": ".memory:memory",
    "browser": ".browser:browser",
}


class _Commands(click.Group):
    """A group whose commands are imported on first lookup (see the module docstring)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, _, attribute = COMMANDS[cmd_name].partition(":")
            self.add_command(
                getattr(importlib.import_module(module, __package__), attribute), cmd_name
            )
        return self.commands.get(cmd_name)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="svc-engine")
@click.pass_context
async def cli(ctx: click.Context) -> None:
    """svc-engine: a local or headless agent automation runtime.

    \b
    Example:
      svc-engine serve            # then, in another terminal:
      svc-engine chat
    """
    # Start-up is over for every command but `serve`, which keeps collection paused
    # until its engine is ready (cli/heap.py).
    if ctx.invoked_subcommand != "serve":
        heap.settle()
