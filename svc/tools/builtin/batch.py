"""``batch``: several tool calls in one, run in order, each through the caller's gates."""

from __future__ import annotations

from typing import Any

from ...errors import SvcError, ValidationFailed
from ..types import ToolContext, ToolFailed, ToolResult
from .base import BuiltinTool

MAX_CALLS = 20


def planned_calls(raw: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """``(tool, args)`` pairs, checked before anything runs so a bad batch has no effects."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for index, item in enumerate(raw):
        name = item.get("tool") or item.get("name")
        field = f"args.tool_calls[{index}].tool"
        if not isinstance(name, str) or not name.strip():
            raise ValidationFailed(f"{field} is required (or `name`)", field=field)
        if name.strip() == "batch":
            raise ValidationFailed(f"{field}: batch cannot run another batch", field=field)
        calls.append((name.strip(), dict(item.get("args") or {})))
    return calls


class BatchTool(BuiltinTool):
    name = "batch"
    description = (
        f"Run up to {MAX_CALLS} tool calls one after another and return every result. Each call is "
        "`{tool, args}` and is checked by the same permissions as a direct call; a failing call "
        "does not stop the others."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "tool_calls": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_CALLS,
                "items": {
                    "type": "object",
                    "properties": {
                        "tool": {"type": "string", "description": "Tool name."},
                        "name": {"type": "string", "description": "Alias of tool."},
                        "args": {"type": "object", "description": "The tool's arguments."},
                    },
                    "additionalProperties": False,
                },
            },
        },
        "required": ["tool_calls"],
        "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        calls = planned_calls(args["tool_calls"])
        if ctx.invoke is None:
            raise ToolFailed("batch needs a tool dispatcher (not available here)")
        results: list[dict[str, Any]] = []
        sections: list[str] = []
        for number, (name, call_args) in enumerate(calls, start=1):
            try:
                result = await ctx.invoke(name, call_args)
            except SvcError as exc:
                # One refused or failing call must not hide the others' results.
                results.append({"tool": name, "ok": False, "error": exc.message, "code": exc.code})
                sections.append(f"[{number}] {name}: failed ({exc.code}): {exc.message}")
                continue
            results.append(
                {
                    "tool": name,
                    "ok": True,
                    "output": result.output,
                    "metadata": dict(result.metadata),
                }
            )
            sections.append(f"[{number}] {name}: ok\n{result.output}")
        failed = sum(1 for r in results if not r["ok"])
        summary = f"batch: {len(results)} calls, {len(results) - failed} ok, {failed} failed"
        return ToolResult("\n\n".join([summary, *sections]), {"results": results})


__all__ = ["MAX_CALLS", "BatchTool", "planned_calls"]
