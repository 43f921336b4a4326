"""``read``: a text file from the workspace, whole or by line range."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import trio

from ..text import decode_text, looks_binary
from ..types import ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .base import BuiltinTool, shown, workspace_path

DEFAULT_MAX_CHARS = 200_000
# Reading is all in memory; a bigger file is almost never what a model wants.
MAX_FILE_BYTES = 50 * 1024 * 1024


@attrs.frozen
class _Read:
    text: str
    size: int


class ReadTool(BuiltinTool):
    name = "read"
    description = (
        "Read a UTF-8 text file from the workspace. `path` is relative to the working directory "
        "(or absolute inside the workspace). Use `offset` (1-based first line) and `limit` (number "
        f"of lines) for a range; `max_chars` caps the output (default {DEFAULT_MAX_CHARS}). "
        "Binary files are refused."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to read."},
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "First line to return (1-based).",
            },
            "limit": {"type": "integer", "minimum": 1, "description": "How many lines to return."},
            "max_chars": {
                "type": "integer",
                "minimum": 1,
                "description": f"Most characters to return (default {DEFAULT_MAX_CHARS}).",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(reads_workspace=True, effects=("filesystem.read",))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = workspace_path(ctx, args["path"], must_exist=True)
        read = await trio.to_thread.run_sync(_read_text, path, args["path"])
        text = read.text
        if "offset" in args or "limit" in args:
            lines = text.splitlines(keepends=True)
            start = int(args.get("offset", 1)) - 1
            stop = start + int(args["limit"]) if "limit" in args else None
            text = "".join(lines[start:stop])
        max_chars = int(args.get("max_chars", DEFAULT_MAX_CHARS))
        truncated = len(text) > max_chars
        if truncated:
            text = (
                text[:max_chars]
                + f"\n\n[truncated at {max_chars} characters; use offset/limit to read the rest]"
            )
        return ToolResult(
            text, {"path": shown(ctx, path), "bytes": read.size, "truncated": truncated}
        )


def _read_text(path: Path, requested: str) -> _Read:
    if path.is_dir():
        raise ToolFailed(f"`{requested}` is a directory, not a file", path=requested)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ToolFailed(f"`{requested}` is too large to read ({size} bytes)", path=requested)
        data = path.read_bytes()
    except OSError as exc:
        raise ToolFailed(
            f"cannot read `{requested}`: {exc.strerror or exc}", path=requested
        ) from None
    if looks_binary(data):
        raise ToolFailed(
            f"`{requested}` is a binary file; read returns text files only", path=requested
        )
    return _Read(decode_text(data), len(data))


__all__ = ["ReadTool"]
