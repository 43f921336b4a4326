"""batch: sequential sub-calls through the caller's dispatcher."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from svc.errors import ValidationFailed
from svc.tools import (
    ToolContext,
    ToolDenied,
    ToolFailed,
    ToolRegistry,
    ToolResult,
    register_builtins,
)
from svc.tools.builtin import BatchTool

batch = BatchTool()


def dispatching(
    workspace: Path, allowed: set[str], log: list[tuple[str, dict[str, Any]]]
) -> ToolContext:
    """A context whose invoke() runs real built-ins, gated by an allow set (the test's policy)."""
    registry = ToolRegistry()
    register_builtins(registry)

    async def invoke(name: str, args: Mapping[str, Any]) -> ToolResult:
        log.append((name, dict(args)))
        tool = registry.require(name)
        if tool.name not in allowed:
            raise ToolDenied(f"tool `{name}` requires approval")
        return await tool.execute(args, ctx)

    ctx = ToolContext(workspace=workspace, invoke=invoke)
    return ctx  # invoke() closes over ctx: sub-calls run in the caller's context


async def test_runs_each_call_in_order_and_collects_results(workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha")
    log: list[tuple[str, dict[str, Any]]] = []
    ctx = dispatching(workspace, {"read", "glob"}, log)
    args = {
        "tool_calls": [
            {"tool": "read", "args": {"path": "a.txt"}},
            {"name": "write", "args": {"path": "b.txt", "content": "x"}},
            {"tool": "read", "args": {"path": "missing.txt"}},
            {"tool": "nope"},
            {"tool": "glob"},
        ]
    }
    result = await batch.execute(args, ctx)
    assert [name for name, _ in log] == ["read", "write", "read", "nope", "glob"]
    assert log[3] == ("nope", {})
    results = result.metadata["results"]
    assert [r["ok"] for r in results] == [True, False, False, False, True]
    assert results[0] == {
        "tool": "read",
        "ok": True,
        "output": "alpha",
        "metadata": {"path": "a.txt", "bytes": 5, "truncated": False},
    }
    assert results[1] == {
        "tool": "write",
        "ok": False,
        "error": "tool `write` requires approval",
        "code": "TOOL_DISPATCH_DENIED",
    }
    assert results[2]["code"] == "TOOL_EXECUTION_FAILED"
    assert results[3]["code"] == "TOOL_NOT_FOUND"
    assert not (workspace / "b.txt").exists()  # the refused call had no effect
    assert result.output.splitlines()[0] == "batch: 5 calls, 2 ok, 3 failed"
    assert "[1] read: ok\nalpha" in result.output
    assert (
        "[2] write: failed (TOOL_DISPATCH_DENIED): tool `write` requires approval" in result.output
    )


async def test_nested_batch_is_refused_before_anything_runs(workspace: Path) -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    ctx = dispatching(workspace, {"read", "batch"}, log)
    args = {"tool_calls": [{"tool": "glob"}, {"tool": "batch", "args": {"tool_calls": []}}]}
    with pytest.raises(ValidationFailed) as info:
        await batch.execute(args, ctx)
    assert info.value.extra["field"] == "args.tool_calls[1].tool"
    assert log == []


async def test_needs_a_dispatcher(ctx: ToolContext) -> None:
    with pytest.raises(ToolFailed, match="dispatcher"):
        await batch.execute({"tool_calls": [{"tool": "read", "args": {"path": "x"}}]}, ctx)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "args.tool_calls"),
        ({"tool_calls": []}, "args.tool_calls"),
        ({"tool_calls": [{"tool": "read"}] * 21}, "args.tool_calls"),
        ({"tool_calls": [{"args": {}}]}, "args.tool_calls[0].tool"),
        ({"tool_calls": [{"tool": "read", "args": "x"}]}, "args.tool_calls[0].args"),
    ],
)
async def test_bad_arguments(workspace: Path, args: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationFailed) as info:
        await batch.execute(args, dispatching(workspace, set(), []))
    assert info.value.extra["field"] == field


async def test_twenty_calls_are_allowed(workspace: Path) -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    result = await batch.execute(
        {"tool_calls": [{"tool": "glob"}] * 20}, dispatching(workspace, {"glob"}, log)
    )
    assert len(log) == 20
    assert result.output.startswith("batch: 20 calls, 20 ok, 0 failed")
