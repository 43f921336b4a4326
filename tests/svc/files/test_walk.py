"""The ignore-aware walk shared by memory imports and storage listings."""

from __future__ import annotations

import os
from pathlib import Path

from svc.files import walk_files


def tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def relatives(root: Path, **kwargs: object) -> list[str]:
    return [e.relative for e in walk_files(root, **kwargs)]  # type: ignore[arg-type]


def test_walk_is_sorted_depth_first_and_skips_hidden_entries(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "b.md": "b",
            "a/z.md": "z",
            "a/b/c.md": "c",
            ".hidden.md": "h",
            ".git/config": "x",
            "a/.secret/k.md": "k",
        },
    )
    assert relatives(tmp_path) == ["a/b/c.md", "a/z.md", "b.md"]


def test_gitignore_rules_apply_with_git_precedence(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n!keep.log\n",
            "app.log": "",
            "keep.log": "",
            "notes.md": "",
            "build/out.md": "",
            "docs/.gitignore": "draft-*.md\n!keep.log\n*.txt\n",
            "docs/draft-1.md": "",
            "docs/final.md": "",
            "docs/readme.txt": "",
            "docs/debug.log": "",
            "docs/sub/keep.log": "",
            "other/readme.txt": "",
        },
    )
    assert relatives(tmp_path) == [
        "docs/final.md",
        "docs/sub/keep.log",
        "keep.log",
        "notes.md",
        "other/readme.txt",
    ]


def test_gitignore_can_be_turned_off_and_directories_excluded_by_name(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {".gitignore": "*.md\n", "a.md": "", "node_modules/x.md": "", "src/node_modules/y.md": ""},
    )
    assert relatives(tmp_path, gitignore=False, exclude_dirs={"node_modules"}) == ["a.md"]


def test_keep_filters_by_path_and_size_and_entries_carry_stat(tmp_path: Path) -> None:
    tree(tmp_path, {"small.md": "x", "big.md": "x" * 100, "skip.py": "x"})
    entries = list(walk_files(tmp_path, keep=lambda rel, size: rel.endswith(".md") and size < 50))
    assert [e.relative for e in entries] == ["small.md"]
    assert (
        entries[0].size == 1 and entries[0].mtime_ns == (tmp_path / "small.md").stat().st_mtime_ns
    )
    assert entries[0].path == (tmp_path / "small.md").resolve()


def test_symlinks_never_leave_the_root_nor_enter_directories(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    tree(root, {"real.md": "r", "dir/inner.md": "i"})
    tree(outside, {"secret.md": "s"})
    os.symlink(outside / "secret.md", root / "leak.md")
    os.symlink(outside, root / "leakdir")
    os.symlink(root / "dir", root / "loop")
    os.symlink(root / "real.md", root / "alias.md")
    assert relatives(root) == ["alias.md", "dir/inner.md", "real.md"]
