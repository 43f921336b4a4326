"""The glob tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.errors import ValidationFailed
from svc.tools import PathOutsideWorkspace, ToolContext
from svc.tools.builtin import GlobTool

glob = GlobTool()


@pytest.fixture
def tree(workspace: Path) -> Path:
    for path in ["README.md", "src/app.py", "src/util/helpers.py", "src/util/data.json",
                 "docs/guide.md", ".git/config", ".git/hooks/pre-commit.py"]:  # fmt: skip
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text("x")
    return workspace


@pytest.fixture
def root(workspace: Path) -> str:
    return str(workspace.resolve())


async def test_default_pattern_lists_the_cwd(tree: Path, root: str, ctx: ToolContext) -> None:
    result = await glob.execute({}, ctx)
    assert result.output.splitlines() == ["README.md", "docs", "src"]
    assert result.metadata["count"] == 3
    assert result.metadata["pattern"] == "*"
    assert result.metadata["workspace_root"] == root
    assert result.metadata["effective_cwd"] == root


async def test_double_star_and_git_is_skipped(tree: Path, ctx: ToolContext) -> None:
    result = await glob.execute({"pattern": "**/*.py"}, ctx)
    assert result.output.splitlines() == ["src/app.py", "src/util/helpers.py"]
    assert result.metadata["count"] == 2


async def test_literal_prefix(tree: Path, ctx: ToolContext) -> None:
    result = await glob.execute({"pattern": "src/util/*"}, ctx)
    assert result.output.splitlines() == ["src/util/data.json", "src/util/helpers.py"]


async def test_results_are_relative_to_the_workspace_from_a_sub_cwd(tree: Path) -> None:
    ctx = ToolContext(workspace=tree, cwd=tree / "src")
    result = await glob.execute({"pattern": "**/*.py"}, ctx)
    assert result.output.splitlines() == ["src/app.py", "src/util/helpers.py"]
    assert result.metadata["effective_cwd"] == str((tree / "src").resolve())
    up = await glob.execute({"pattern": "../docs/*.md"}, ctx)
    assert up.output == "docs/guide.md"


async def test_plain_path(tree: Path, ctx: ToolContext) -> None:
    assert (await glob.execute({"pattern": "README.md"}, ctx)).output == "README.md"
    missing = await glob.execute({"pattern": "nothing.txt"}, ctx)
    assert missing.output == "no paths match `nothing.txt`"
    assert missing.metadata["count"] == 0


async def test_at_most_100_listed(workspace: Path, ctx: ToolContext) -> None:
    for i in range(130):
        (workspace / f"f{i:03}.txt").write_text("")
    result = await glob.execute({"pattern": "*.txt"}, ctx)
    lines = result.output.splitlines()
    assert lines[:100] == [f"f{i:03}.txt" for i in range(100)]
    assert lines[100] == "... and 30 more (narrow the pattern)"
    assert result.metadata["count"] == 130
    assert result.metadata["truncated"] is True


async def test_escaping_patterns_are_refused(tree: Path, ctx: ToolContext) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await glob.execute({"pattern": "../*"}, ctx)
    with pytest.raises(PathOutsideWorkspace):
        await glob.execute({"pattern": "/etc/*"}, ctx)
    with pytest.raises(ValidationFailed) as info:
        await glob.execute({"pattern": "src/*/../../../*"}, ctx)
    assert info.value.extra["field"] == "args.pattern"
