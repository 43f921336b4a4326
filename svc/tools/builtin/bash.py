"""``bash``: run a shell command in the workspace."""

from __future__ import annotations

from typing import Any

from ..text import decode_text
from ..types import ToolCapabilities, ToolContext, ToolResult
from .base import BuiltinTool, working_directory

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
OUTPUT_CAP = 100_000


class BashTool(BuiltinTool):
    name = "bash"
    bounds_itself = True
    description = (
        "Run a shell command with /bin/sh in the working directory and return its combined stdout "
        f"and stderr (at most {OUTPUT_CAP} bytes). stdin is closed. `timeout_ms` defaults "
        f"to {DEFAULT_TIMEOUT_MS} (max {MAX_TIMEOUT_MS}); on timeout the command and everything it "
        "started are killed. A non-zero exit code is reported at the end of the output."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "description": "The shell command line."},
            "timeout_ms": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_MS,
                "description": "Kill the command after this many milliseconds "
                f"(default {DEFAULT_TIMEOUT_MS}).",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(
        reads_workspace=True,
        writes_workspace=True,
        network_access=True,
        destructive=True,
        effects=("process.spawn",),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        # Imported on first use: start-up registers the tool but never runs a command.
        from ..shell import run_shell

        timeout_ms = int(args.get("timeout_ms", DEFAULT_TIMEOUT_MS))
        result = await run_shell(
            args["command"],
            cwd=working_directory(ctx),
            time_limit=timeout_ms / 1000,
            output_cap=OUTPUT_CAP,
        )
        text = decode_text(result.output)
        notes: list[str] = []
        if result.truncated:
            notes.append(
                f"[output truncated: {result.total_bytes} bytes, first {len(result.output)} shown]"
            )
        if result.timed_out:
            notes.append(
                f"[command timed out after {timeout_ms} ms; it and its child processes were killed]"
            )
        elif result.exit_code:
            notes.append(f"[exit code {result.exit_code}]")
        # The trailing newline of a command's output is noise once notes follow it.
        parts = ([text.rstrip("\n")] if text.strip() else []) + notes
        output = "\n".join(parts) or "(no output)"
        metadata = {
            "exit_code": result.exit_code,
            "timed_out": result.timed_out,
            "truncated": result.truncated,
        }
        return ToolResult(output, metadata)


__all__ = ["BashTool"]
