"""``glob``: list workspace paths matching a pattern."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from ...errors import ValidationFailed
from ..types import ToolCapabilities, ToolContext, ToolResult
from .base import BuiltinTool, shown, working_directory, workspace_path, workspace_root

MAX_LISTED = 100
# Bounds the walk on enormous trees; the count is then a lower bound.
MAX_SCANNED = 200_000


class GlobTool(BuiltinTool):
    name = "glob"
    description = (
        "List files and directories matching a glob `pattern` (default `*`), relative to the "
        "working directory. `*` and `?` stay within one path segment, `**` crosses directories "
        f"(`src/**/*.py`). `.git` is skipped. At most {MAX_LISTED} paths are listed, relative to "
        "the workspace root, sorted."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob pattern (default `*`)."},
        },
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(reads_workspace=True, effects=("filesystem.read",))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        # Imported on first use: start-up registers the tool but never runs it.
        from .. import globbing

        pattern = args.get("pattern") or "*"
        base_text, rest = globbing.split_pattern(pattern)
        if ".." in rest.split("/"):
            raise ValidationFailed(
                "args.pattern may use `..` only before the first wildcard", field="args.pattern"
            )
        base = workspace_path(ctx, base_text, field="args.pattern")
        found = await trio.to_thread.run_sync(_find, base, rest, abandon_on_cancel=True)
        paths = sorted(shown(ctx, p) for p in found)
        listed = paths[:MAX_LISTED]
        output = "\n".join(listed) if listed else f"no paths match `{pattern}`"
        if len(paths) > MAX_LISTED:
            output += f"\n... and {len(paths) - MAX_LISTED} more (narrow the pattern)"
        metadata = {
            "count": len(paths),
            "pattern": pattern,
            "workspace_root": str(workspace_root(ctx)),
            "effective_cwd": str(working_directory(ctx)),
            "truncated": len(paths) > MAX_LISTED,
        }
        return ToolResult(output, metadata)


def _find(base: Path, rest: str) -> list[Path]:
    if not rest:  # a plain path: it either exists or not
        return [base] if base.exists() or base.is_symlink() else []
    if not base.is_dir():
        return []
    from .. import globbing

    found: list[Path] = []
    for relative, _is_dir in globbing.walk(
        base, max_depth=globbing.pattern_depth(rest), limit=MAX_SCANNED
    ):
        if globbing.matches(rest, relative):
            found.append(base / relative)
    return found


__all__ = ["GlobTool"]
