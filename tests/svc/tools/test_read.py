"""The read tool: text out, ranges, caps, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.errors import ValidationFailed
from svc.tools import PathOutsideWorkspace, ToolContext, ToolFailed
from svc.tools.builtin import ReadTool

read = ReadTool()


async def test_reads_a_text_file(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "notes.txt").write_text("héllo\nworld\n", encoding="utf-8")
    result = await read.execute({"path": "notes.txt"}, ctx)
    assert result.output == "héllo\nworld\n"
    assert result.metadata == {
        "path": "notes.txt",
        "bytes": len("héllo\nworld\n".encode()),
        "truncated": False,
    }


async def test_line_ranges_are_one_based(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "lines.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    assert (
        await read.execute({"path": "lines.txt", "offset": 3, "limit": 2}, ctx)
    ).output == "line 3\nline 4\n"
    assert (await read.execute({"path": "lines.txt", "offset": 10}, ctx)).output == "line 10\n"
    assert (await read.execute({"path": "lines.txt", "limit": 1}, ctx)).output == "line 1\n"
    assert (await read.execute({"path": "lines.txt", "offset": 50}, ctx)).output == ""


async def test_max_chars_truncates_and_says_so(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "big.txt").write_text("x" * 1000)
    result = await read.execute({"path": "big.txt", "max_chars": 10}, ctx)
    assert result.output.startswith("x" * 10 + "\n\n[truncated at 10 characters")
    assert result.metadata["truncated"] is True
    assert result.metadata["bytes"] == 1000


async def test_relative_to_the_effective_cwd(workspace: Path) -> None:
    (workspace / "sub").mkdir()
    (workspace / "sub" / "a.txt").write_text("in sub")
    result = await read.execute(
        {"path": "a.txt"}, ToolContext(workspace=workspace, cwd=workspace / "sub")
    )
    assert result.output == "in sub"
    assert result.metadata["path"] == "sub/a.txt"


async def test_binary_files_are_refused(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    with pytest.raises(ToolFailed) as info:
        await read.execute({"path": "image.png"}, ctx)
    assert "binary file" in info.value.message


async def test_missing_file_and_directory(workspace: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailed, match="no such file"):
        await read.execute({"path": "nope.txt"}, ctx)
    (workspace / "dir").mkdir()
    with pytest.raises(ToolFailed, match="is a directory"):
        await read.execute({"path": "dir"}, ctx)


async def test_outside_the_workspace_is_refused(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "secret.txt").write_text("s")
    with pytest.raises(PathOutsideWorkspace):
        await read.execute({"path": "../secret.txt"}, ctx)


async def test_bad_arguments(ctx: ToolContext) -> None:
    with pytest.raises(ValidationFailed) as info:
        await read.execute({}, ctx)
    assert info.value.extra["field"] == "args.path"
    with pytest.raises(ValidationFailed) as info:
        await read.execute({"path": "a", "offset": 0}, ctx)
    assert info.value.extra["field"] == "args.offset"
    with pytest.raises(ValidationFailed) as info:
        await read.execute({"path": "a", "bogus": 1}, ctx)
    assert info.value.extra["field"] == "args.bogus"


async def test_engine_injected_context_keys_are_ignored(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.txt").write_text("a")
    args = {"path": "a.txt", "__workspace_root": str(workspace), "__session_id": "s1"}
    assert (await read.execute(args, ctx)).output == "a"
