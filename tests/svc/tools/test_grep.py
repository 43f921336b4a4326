"""The grep tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.errors import ValidationFailed
from svc.tools import PathOutsideWorkspace, ToolContext, ToolFailed
from svc.tools.builtin import GrepTool

grep = GrepTool()


@pytest.fixture
def tree(workspace: Path) -> Path:
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("import os\n\ndef main():\n    return os.getcwd()\n")
    (workspace / "src" / "b.txt").write_text("os is mentioned here\n")
    (workspace / "blob.bin").write_bytes(b"os\0os")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("os\n")
    return workspace


async def test_path_line_text(tree: Path, ctx: ToolContext) -> None:
    result = await grep.execute({"pattern": r"\bos\b"}, ctx)
    assert result.output.splitlines() == [
        "src/a.py:1:import os",
        "src/a.py:4:    return os.getcwd()",
        "src/b.txt:1:os is mentioned here",
    ]
    assert result.metadata["count"] == 3
    assert result.metadata["truncated"] is False


async def test_include_and_path(tree: Path, ctx: ToolContext) -> None:
    result = await grep.execute({"pattern": "os", "include": "*.py"}, ctx)
    assert [line.split(":")[0] for line in result.output.splitlines()] == ["src/a.py", "src/a.py"]
    result = await grep.execute({"pattern": "main", "path": "src/a.py"}, ctx)
    assert result.output == "src/a.py:3:def main():"
    result = await grep.execute({"pattern": "os", "path": "src", "include": "*.txt"}, ctx)
    assert result.output == "src/b.txt:1:os is mentioned here"


async def test_default_path_is_the_effective_cwd(tree: Path) -> None:
    (tree / "top.txt").write_text("os\n")
    result = await grep.execute({"pattern": "os"}, ToolContext(workspace=tree, cwd=tree / "src"))
    assert all(line.startswith("src/") for line in result.output.splitlines())


async def test_no_matches(tree: Path, ctx: ToolContext) -> None:
    result = await grep.execute({"pattern": "zebra"}, ctx)
    assert result.output == "no matches for `zebra`"
    assert result.metadata["count"] == 0


async def test_matches_are_capped(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "many.txt").write_text("hit " + "x" * 1000 + "\n" * 1 + "hit\n" * 300)
    result = await grep.execute({"pattern": "hit"}, ctx)
    lines = result.output.splitlines()
    assert len(lines) == 201
    assert lines[-1].startswith("... stopped after 200 matches")
    assert len(lines[0]) < 400  # long lines are clipped
    assert result.metadata["truncated"] is True


async def test_invalid_regex(ctx: ToolContext) -> None:
    with pytest.raises(ValidationFailed) as info:
        await grep.execute({"pattern": "(unclosed"}, ctx)
    assert info.value.extra["field"] == "args.pattern"
    assert "not a valid regular expression" in info.value.message


async def test_confinement(tmp_path: Path, workspace: Path, ctx: ToolContext) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "s.txt").write_text("secret\n")
    with pytest.raises(PathOutsideWorkspace):
        await grep.execute({"pattern": "secret", "path": ".."}, ctx)
    (workspace / "out.txt").symlink_to(tmp_path / "outside" / "s.txt")
    (workspace / "in.txt").write_text("secret inside\n")
    (workspace / "alias.txt").symlink_to(workspace / "in.txt")
    result = await grep.execute({"pattern": "secret"}, ctx)
    assert result.output.splitlines() == ["alias.txt:1:secret inside", "in.txt:1:secret inside"]
    with pytest.raises(ToolFailed, match="no such file"):
        await grep.execute({"pattern": "x", "path": "missing"}, ctx)
