"""``svc-engine tool``: run one tool directly, without a model."""

from __future__ import annotations

from pathlib import Path

import asyncclick as click

from svc.errors import SvcError

from .common import fail, load_settings, print_json, read_json_input


@click.command()
@click.option(
    "--json", "json_input", required=True, help='{"tool": ..., "args": {...}}: raw, @file, or -.'
)
@click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, help="Where state lives."
)
async def tool(json_input: str, state_dir: Path | None) -> None:
    """Execute one tool and print {output, metadata}. Tools that need approval fail closed.

    \b
    Example:
      svc-engine tool --json '{"tool": "read", "args": {"path": "README.md"}}'
    """
    # The engine is imported here, not with the command group: other commands never load it.
    from svc.engine import open_engine
    from svc.tools import ToolContext

    body = read_json_input(json_input)
    if not isinstance(body, dict):
        fail('--json must be an object like {"tool": "read", "args": {...}}', 2)
    name = body.get("tool")
    if not isinstance(name, str) or not name.strip():
        fail("tool is required in input json", 2)
    args = body.get("args") or {}
    if not isinstance(args, dict):
        fail("args must be an object", 2)
    settings = load_settings(state_dir=state_dir)
    try:
        async with open_engine(settings) as engine:
            ctx = ToolContext(
                workspace=engine.workspace,
                source="cli",
                http=engine.http,
                settings=engine.settings,
                interactive=False,
            )
            outcome = await engine.dispatcher.dispatch(name.strip(), args, ctx)
    except SvcError as exc:
        fail(exc.message)
    if outcome.ok:
        print_json({"output": outcome.output or "", "metadata": dict(outcome.metadata)})
        return
    if outcome.code == "TOOL_DISPATCH_DENIED" and "requires approval" in (outcome.error or ""):
        fail(
            f"CLI tool `{outcome.tool}` requires approval; "
            "non-interactive CLI dispatch fails closed"
        )
    if outcome.code == "TOOL_DISPATCH_DENIED":
        fail(f"CLI tool `{outcome.tool}` is denied by permission rule")
    fail(outcome.error or f"tool `{outcome.tool}` failed")
