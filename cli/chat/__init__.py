"""``svc-engine chat``: an interactive terminal client of a running engine.

Only this module loads with the command group (for ``--help``); the client, the
console and the loop load when the command runs.
"""

from __future__ import annotations

import asyncclick as click


@click.command()
@click.option(
    "--hostname", "--host", "host", default="127.0.0.1", envvar="SVC_ENGINE_HOST", show_default=True
)
@click.option("--port", type=int, default=39731, envvar="SVC_ENGINE_PORT", show_default=True)
@click.option("--session", "session_id", default=None, help="Resume this session.")
@click.option(
    "--token",
    default=None,
    envvar=["AGENT_API_TOKEN", "SVC_API_TOKEN"],
    help="The engine's API token (or SVC_API_TOKEN).",
)
async def chat(host: str, port: int, session_id: str | None, token: str | None) -> None:
    """Chat with a running engine: answers stream, tools ask inline, Ctrl-C cancels a run.

    Reads prompts from a terminal (with line editing and history) or, piped,
    one prompt per line.

    \b
    Example:
      svc-engine chat --port 39731 --session 5f0c...
    """
    from .main import run_chat

    raise SystemExit(await run_chat(host=host, port=port, session_id=session_id, token=token))
