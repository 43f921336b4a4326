"""``write``: create or replace a text file in the workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from ...errors import ValidationFailed
from ..types import ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .base import BuiltinTool, shown, workspace_path


class WriteTool(BuiltinTool):
    name = "write"
    description = (
        "Write `content` to the file at `path` in the workspace, replacing it if it exists and "
        "creating missing parent directories. An empty `content` needs `allow_empty: true`."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to write."},
            "content": {"type": "string", "description": "The complete new file content."},
            "allow_empty": {
                "type": "boolean",
                "description": "Allow writing an empty file (default false).",
            },
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(
        reads_workspace=True, writes_workspace=True, destructive=True, effects=("filesystem.write",)
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        content: str = args["content"]
        if content == "" and not args.get("allow_empty", False):
            # An empty write is nearly always a model that lost its content on the way.
            raise ValidationFailed(
                "args.content is empty; pass allow_empty: true to write an empty file",
                field="args.content",
            )
        path = workspace_path(ctx, args["path"])
        data = content.encode("utf-8")
        await trio.to_thread.run_sync(_write, path, data, args["path"])
        return ToolResult("ok", {"path": shown(ctx, path), "bytes": len(data)})


def _write(path: Path, data: bytes, requested: str) -> None:
    if path.is_dir():
        raise ToolFailed(f"`{requested}` is a directory", path=requested)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise ToolFailed(
            f"cannot write `{requested}`: {exc.strerror or exc}", path=requested
        ) from None


__all__ = ["WriteTool"]
