"""The edit tool: literal replacement, uniqueness, replace_all."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.errors import ValidationFailed
from svc.tools import PathOutsideWorkspace, ToolContext, ToolFailed
from svc.tools.builtin import EditTool

edit = EditTool()


async def test_replaces_a_unique_occurrence(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.py").write_text("x = 1\ny = 2\n")
    result = await edit.execute({"path": "a.py", "old": "y = 2", "new": "y = 3"}, ctx)
    assert result.output == "ok"
    assert result.metadata == {"path": "a.py", "replacements": 1}
    assert (workspace / "a.py").read_text() == "x = 1\ny = 3\n"


async def test_replacement_is_literal_not_regex(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "r.txt").write_text("a.b a+b")
    await edit.execute({"path": "r.txt", "old": "a+b", "new": r"\1"}, ctx)
    assert (workspace / "r.txt").read_text() == r"a.b \1"


async def test_old_not_found(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.txt").write_text("abc")
    with pytest.raises(ToolFailed, match="not found"):
        await edit.execute({"path": "a.txt", "old": "zzz", "new": "y"}, ctx)


async def test_several_occurrences_need_replace_all(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.txt").write_text("foo foo foo")
    with pytest.raises(ToolFailed) as info:
        await edit.execute({"path": "a.txt", "old": "foo", "new": "bar"}, ctx)
    assert "occurs 3 times" in info.value.message
    assert (workspace / "a.txt").read_text() == "foo foo foo"
    result = await edit.execute(
        {"path": "a.txt", "old": "foo", "new": "bar", "replace_all": True}, ctx
    )
    assert result.metadata["replacements"] == 3
    assert (workspace / "a.txt").read_text() == "bar bar bar"


async def test_bad_arguments(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.txt").write_text("abc")
    with pytest.raises(ValidationFailed) as info:
        await edit.execute({"path": "a.txt", "old": "", "new": "x"}, ctx)
    assert info.value.extra["field"] == "args.old"
    with pytest.raises(ValidationFailed) as info:
        await edit.execute({"path": "a.txt", "old": "abc"}, ctx)
    assert info.value.extra["field"] == "args.new"
    with pytest.raises(ValidationFailed, match="same as"):
        await edit.execute({"path": "a.txt", "old": "abc", "new": "abc"}, ctx)


async def test_missing_binary_and_outside(
    tmp_path: Path, workspace: Path, ctx: ToolContext
) -> None:
    with pytest.raises(ToolFailed, match="no such file"):
        await edit.execute({"path": "missing.txt", "old": "a", "new": "b"}, ctx)
    (workspace / "bin").write_bytes(b"a\0b")
    with pytest.raises(ToolFailed, match="binary"):
        await edit.execute({"path": "bin", "old": "a", "new": "b"}, ctx)
    (workspace / "latin1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolFailed, match="not UTF-8"):
        await edit.execute({"path": "latin1.txt", "old": "caf", "new": "b"}, ctx)
    (tmp_path / "o.txt").write_text("a")
    with pytest.raises(PathOutsideWorkspace):
        await edit.execute({"path": str(tmp_path / "o.txt"), "old": "a", "new": "b"}, ctx)
    assert (tmp_path / "o.txt").read_text() == "a"
