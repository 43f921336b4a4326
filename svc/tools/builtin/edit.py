"""``edit``: replace literal text in a workspace file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import trio

from ...errors import ValidationFailed
from ..text import looks_binary
from ..types import ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .base import BuiltinTool, shown, workspace_path


@attrs.frozen
class _Edit:
    old: str
    new: str
    replace_all: bool
    requested: str


class EditTool(BuiltinTool):
    name = "edit"
    description = (
        "Replace the exact text `old` with `new` in the file at `path`. `old` must occur exactly "
        "once unless `replace_all` is true; include enough surrounding text to make it unique."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to edit."},
            "old": {"type": "string", "minLength": 1, "description": "Exact text to replace."},
            "new": {"type": "string", "description": "Replacement text."},
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence (default false).",
            },
        },
        "required": ["path", "old", "new"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(
        reads_workspace=True, writes_workspace=True, effects=("filesystem.write",)
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if args["old"] == args["new"]:
            raise ValidationFailed(
                "args.new is the same as args.old; nothing would change", field="args.new"
            )
        path = workspace_path(ctx, args["path"], must_exist=True)
        edit = _Edit(args["old"], args["new"], bool(args.get("replace_all", False)), args["path"])
        count = await trio.to_thread.run_sync(_apply, path, edit)
        return ToolResult("ok", {"path": shown(ctx, path), "replacements": count})


def _apply(path: Path, edit: _Edit) -> int:
    if path.is_dir():
        raise ToolFailed(f"`{edit.requested}` is a directory, not a file", path=edit.requested)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ToolFailed(
            f"cannot read `{edit.requested}`: {exc.strerror or exc}", path=edit.requested
        ) from None
    if looks_binary(data):
        raise ToolFailed(
            f"`{edit.requested}` is a binary file; edit changes text files only",
            path=edit.requested,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Writing back a lossy decode would corrupt the bytes we could not read.
        raise ToolFailed(f"`{edit.requested}` is not UTF-8 text", path=edit.requested) from None
    count = text.count(edit.old)
    if count == 0:
        raise ToolFailed(f"the `old` text was not found in `{edit.requested}`", path=edit.requested)
    if count > 1 and not edit.replace_all:
        raise ToolFailed(
            f"the `old` text occurs {count} times in `{edit.requested}`; add surrounding context "
            "to make it unique or set replace_all",
            path=edit.requested,
            occurrences=count,
        )
    try:
        path.write_text(text.replace(edit.old, edit.new), encoding="utf-8", newline="")
    except OSError as exc:
        raise ToolFailed(
            f"cannot write `{edit.requested}`: {exc.strerror or exc}", path=edit.requested
        ) from None
    return count


__all__ = ["EditTool"]
