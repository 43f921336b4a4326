"""The write tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.errors import ValidationFailed
from svc.tools import PathOutsideWorkspace, ToolContext, ToolFailed
from svc.tools.builtin import WriteTool

write = WriteTool()


async def test_writes_and_creates_parent_directories(workspace: Path, ctx: ToolContext) -> None:
    result = await write.execute({"path": "deep/er/file.txt", "content": "héllo"}, ctx)
    assert result.output == "ok"
    assert result.metadata == {"path": "deep/er/file.txt", "bytes": 6}
    assert (workspace / "deep" / "er" / "file.txt").read_text(encoding="utf-8") == "héllo"


async def test_replaces_an_existing_file(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "f.txt").write_text("old content")
    await write.execute({"path": "f.txt", "content": "new"}, ctx)
    assert (workspace / "f.txt").read_text() == "new"


async def test_empty_content_needs_allow_empty(workspace: Path, ctx: ToolContext) -> None:
    with pytest.raises(ValidationFailed) as info:
        await write.execute({"path": "e.txt", "content": ""}, ctx)
    assert info.value.extra["field"] == "args.content"
    assert not (workspace / "e.txt").exists()
    result = await write.execute({"path": "e.txt", "content": "", "allow_empty": True}, ctx)
    assert result.metadata["bytes"] == 0
    assert (workspace / "e.txt").read_text() == ""


async def test_relative_to_the_effective_cwd(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    ctx = ToolContext(workspace=workspace, cwd=workspace / "sub")
    result = await write.execute({"path": "x.txt", "content": "x"}, ctx)
    assert result.metadata["path"] == "sub/x.txt"
    assert (workspace / "sub" / "x.txt").exists()


async def test_refuses_paths_outside(tmp_path: Path, workspace: Path, ctx: ToolContext) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await write.execute({"path": "../escape.txt", "content": "x"}, ctx)
    (tmp_path / "elsewhere").mkdir()
    (workspace / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(PathOutsideWorkspace):
        await write.execute({"path": "link/x.txt", "content": "x"}, ctx)
    assert not (tmp_path / "escape.txt").exists()
    assert not (tmp_path / "elsewhere" / "x.txt").exists()


async def test_writing_onto_a_directory_fails(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(ToolFailed, match="is a directory"):
        await write.execute({"path": "d", "content": "x"}, ctx)


async def test_content_is_required(ctx: ToolContext) -> None:
    with pytest.raises(ValidationFailed) as info:
        await write.execute({"path": "x.txt"}, ctx)
    assert info.value.extra["field"] == "args.content"
    with pytest.raises(ValidationFailed) as info:
        await write.execute({"path": "x.txt", "content": 5}, ctx)
    assert info.value.message == "args.content must be a string, not integer"
