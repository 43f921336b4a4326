"""Glob pattern translation and the pruned walk."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.tools.globbing import matches, pattern_depth, split_pattern, walk


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "sub/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("src/**", "src/a/b", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/x/test_a.py", True),
        ("src/**/test_*.py", "lib/test_a.py", False),
        ("?.txt", "a.txt", True),
        ("?.txt", "ab.txt", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "c.txt", True),
        ("[!ab].txt", "a.txt", False),
        ("a+b.txt", "a+b.txt", True),
        ("a+b.txt", "aab.txt", False),
    ],
)
def test_matches(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_split_pattern() -> None:
    assert split_pattern("src/**/*.py") == ("src", "**/*.py")
    assert split_pattern("*.md") == (".", "*.md")
    assert split_pattern("/abs/dir/*.txt") == ("/abs/dir", "*.txt")
    assert split_pattern("../up/*") == ("../up", "*")
    assert split_pattern("plain/file.txt") == ("plain/file.txt", "")


def test_pattern_depth() -> None:
    assert pattern_depth("*") == 1
    assert pattern_depth("*/*.py") == 2
    assert pattern_depth("**/*.py") is None


def test_walk_skips_git_and_does_not_follow_directory_symlinks(tmp_path: Path) -> None:
    (tmp_path / ".git" / "objects").mkdir(parents=True)
    (tmp_path / ".git" / "HEAD").write_text("ref")
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c.txt").write_text("c")
    (tmp_path / "top.txt").write_text("t")
    (tmp_path / "loop").symlink_to(tmp_path)
    entries = dict(walk(tmp_path))
    assert entries == {"a": True, "loop": True, "top.txt": False, "a/b": True, "a/b/c.txt": False}
    assert dict(walk(tmp_path, max_depth=1)) == {"a": True, "loop": True, "top.txt": False}
    assert len(list(walk(tmp_path, limit=2))) == 2
