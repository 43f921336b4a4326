"""``svc-engine``: the command group."""

from __future__ import annotations

import asyncclick as click

from svc import __version__

from . import basic, memory, models, serve, tool


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="svc-engine")
async def cli() -> None:
    """svc-engine: a local or headless agent automation runtime."""


for command in (
    serve.serve, basic.status, models.run, models.parallel, tool.tool, basic.token, basic.providers, basic.chat,
    memory.memory,
):
    cli.add_command(command)
