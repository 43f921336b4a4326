"""``grep``: search workspace files for a regular expression."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import trio

from ...errors import ValidationFailed
from ..paths import is_inside_workspace, workspace_relative
from ..text import clip, decode_text, looks_binary
from ..types import ToolCapabilities, ToolContext, ToolResult
from .base import BuiltinTool, shown, workspace_path

MAX_MATCHES = 200
MAX_LINE_CHARS = 300
# Minified bundles and data dumps are not worth scanning line by line.
MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_FILES = 50_000


@attrs.frozen
class _Search:
    regex: re.Pattern[str]
    include: str | None
    workspace: Path


@attrs.frozen
class _Found:
    lines: list[str]
    count: int
    truncated: bool


class GrepTool(BuiltinTool):
    name = "grep"
    description = (
        "Search files for a regular expression (Python syntax). `path` is a file or directory "
        "(default: the working directory); `include` limits the search to files matching a glob "
        "(`*.py`, or `src/**/*.ts` relative to `path`). Prints `path:line:text` for each match, "
        f"at most {MAX_MATCHES}. Binary files and `.git` are skipped."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "description": "Regular expression to search for.",
            },
            "path": {
                "type": "string",
                "description": "File or directory to search (default: working directory).",
            },
            "include": {"type": "string", "description": "Only search files matching this glob."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    capabilities = ToolCapabilities(reads_workspace=True, effects=("filesystem.read",))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            regex = re.compile(args["pattern"])
        except re.error as exc:
            raise ValidationFailed(
                f"args.pattern is not a valid regular expression: {exc}", field="args.pattern"
            )
        root = workspace_path(ctx, args.get("path") or ".", must_exist=True)
        search = _Search(regex, args.get("include") or None, ctx.workspace)
        found = await trio.to_thread.run_sync(_search, root, search, abandon_on_cancel=True)
        output = "\n".join(found.lines) if found.lines else f"no matches for `{args['pattern']}`"
        if found.truncated:
            output += f"\n... stopped after {MAX_MATCHES} matches (narrow the pattern or path)"
        metadata = {
            "pattern": args["pattern"],
            "path": shown(ctx, root),
            "count": found.count,
            "truncated": found.truncated,
        }
        return ToolResult(output, metadata)


def _candidates(root: Path, include: str | None) -> list[Path]:
    # Imported on first use: start-up registers the tool but never runs it.
    from .. import globbing

    if root.is_file():
        return [root]
    files: list[Path] = []
    for relative, is_dir in globbing.walk(root, limit=MAX_FILES):
        if is_dir:
            continue
        if include is not None:
            target = relative if "/" in include else relative.rsplit("/", 1)[-1]
            if not globbing.matches(include, target):
                continue
        files.append(root / relative)
    return files


def _search(root: Path, search: _Search) -> _Found:
    lines: list[str] = []
    for file in _candidates(root, search.include):
        try:
            if file.is_symlink() and not is_inside_workspace(search.workspace, file):
                continue  # a symlink out of the workspace: its target is not ours to read
            if file.stat().st_size > MAX_FILE_BYTES:
                continue
            data = file.read_bytes()
        except OSError:
            continue
        if looks_binary(data):
            continue
        shown_path = workspace_relative(search.workspace, file)
        for number, line in enumerate(decode_text(data).splitlines(), start=1):
            if search.regex.search(line):
                lines.append(f"{shown_path}:{number}:{clip(line, MAX_LINE_CHARS)}")
                if len(lines) >= MAX_MATCHES:
                    return _Found(lines, len(lines), True)
    return _Found(lines, len(lines), False)


__all__ = ["GrepTool"]
