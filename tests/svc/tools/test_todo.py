"""todo_write: normalisation and the session callback."""

from __future__ import annotations

from typing import Any

import pytest

from svc.errors import ValidationFailed
from svc.tools import ToolContext, ToolRegistry
from svc.tools.builtin import TodoWriteTool

todo = TodoWriteTool()


async def test_normalises_and_stores(ctx: ToolContext) -> None:
    stored: list[list[dict[str, Any]]] = []

    async def set_todos(items: list[dict[str, Any]]) -> None:
        stored.append(items)

    ctx.set_todos = set_todos
    args = {
        "todos": [
            {"id": "a", "content": " write tests ", "status": "in_progress"},
            {"text": "ship it", "status": "pending"},
            {"id": 7, "content": "celebrate", "status": "completed"},
            {"content": "skip", "status": "cancelled"},
        ]
    }
    result = await todo.execute(args, ctx)
    expected = [
        {"id": "a", "content": "write tests", "status": "in_progress"},
        {"id": "todo-1", "content": "ship it", "status": "pending"},
        {"id": "7", "content": "celebrate", "status": "completed"},
        {"id": "todo-2", "content": "skip", "status": "cancelled"},
    ]
    assert result.output == "todo list updated: 4 items"
    assert result.metadata == {"todos": expected}
    assert stored == [expected]


async def test_generated_ids_avoid_given_ones(ctx: ToolContext) -> None:
    result = await todo.execute(
        {
            "todos": [
                {"content": "x", "status": "pending"},
                {"id": "todo-1", "content": "y", "status": "pending"},
            ]
        },
        ctx,
    )
    assert [t["id"] for t in result.metadata["todos"]] == ["todo-2", "todo-1"]


async def test_without_a_session_callback_it_still_answers(ctx: ToolContext) -> None:
    result = await todo.execute({"todos": []}, ctx)
    assert result.output == "todo list updated: 0 items"


@pytest.mark.parametrize(
    ("todos", "field"),
    [
        ([{"content": "x", "status": "done"}], "args.todos[0].status"),
        ([{"content": "x"}], "args.todos[0].status"),
        ([{"content": "x", "status": "pending"}, {"status": "pending"}], "args.todos[1].content"),
        ([{"content": "  ", "status": "pending"}], "args.todos[0].content"),
        ([{"content": "x", "status": "pending", "priority": "high"}], "args.todos[0].priority"),
        ("not a list", "args.todos"),
    ],
)
async def test_bad_items(ctx: ToolContext, todos: Any, field: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        await todo.execute({"todos": todos}, ctx)
    assert info.value.extra["field"] == field


def test_aliases_resolve_in_the_registry() -> None:
    registry = ToolRegistry([TodoWriteTool()])
    assert registry.canonical("todowrite") == "todo_write"
    assert registry.canonical("update_todo_list") == "todo_write"
