"""``todo_write``: replace the session's todo list."""

from __future__ import annotations

from typing import Any

from ...errors import ValidationFailed
from ..types import ToolContext, ToolResult
from .base import BuiltinTool

STATUSES = ("pending", "in_progress", "completed", "cancelled")


def normalize_todos(raw: list[dict[str, Any]]) -> list[dict[str, str]]:
    """``{id, content, status}`` items; ``text`` is taken for content, missing ids are generated."""
    used = {str(item["id"]) for item in raw if item.get("id") not in (None, "")}
    todos: list[dict[str, str]] = []
    next_number = 1
    for index, item in enumerate(raw):
        content = item.get("content") if item.get("content") not in (None, "") else item.get("text")
        if not isinstance(content, str) or not content.strip():
            field = f"args.todos[{index}].content"
            raise ValidationFailed(f"{field} is required (or `text`)", field=field)
        todo_id = item.get("id")
        if todo_id in (None, ""):
            # Short, stable ids the model can refer back to in the next update.
            while f"todo-{next_number}" in used:
                next_number += 1
            todo_id = f"todo-{next_number}"
            used.add(todo_id)
        todos.append({"id": str(todo_id), "content": content.strip(), "status": item["status"]})
    return todos


class TodoWriteTool(BuiltinTool):
    name = "todo_write"
    aliases = ("todowrite", "update_todo_list")
    description = (
        "Replace the todo list for this session. Send the complete list every time: each item has "
        "`content` (or `text`), a `status` (pending, in_progress, completed, cancelled) and an "
        "optional `id` (generated when missing)."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The complete, updated todo list.",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": ["string", "integer"], "description": "Stable item id."},
                        "content": {"type": "string", "description": "What to do."},
                        "text": {"type": "string", "description": "Alias of content."},
                        "status": {"type": "string", "enum": list(STATUSES)},
                    },
                    "required": ["status"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["todos"],
        "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        todos = normalize_todos(args["todos"])
        if ctx.set_todos is not None:
            await ctx.set_todos([dict(t) for t in todos])
        return ToolResult(f"todo list updated: {len(todos)} items", {"todos": todos})


__all__ = ["STATUSES", "TodoWriteTool", "normalize_todos"]
