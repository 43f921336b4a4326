"""Walk a directory tree the way a developer expects: hidden and git-ignored entries skipped.

The walk is deterministic (entries sorted by name, depth first), never follows
a symbolic link out of the root (nor into a directory, so it cannot loop), and
honours ``.gitignore`` files at every level with git's precedence: a deeper
file's rules override a shallower one's, and within one file the last
matching rule wins (``!pattern`` re-includes). As in git, nothing inside an
ignored directory can be re-included, because the walk never enters it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    import pathspec


@attrs.frozen
class WalkEntry:
    path: Path
    """Absolute path of the file."""
    relative: str
    """Path relative to the walk's root, with ``/`` separators."""
    size: int
    mtime_ns: int


@attrs.frozen
class _Rules:
    base: str
    """Directory of the ``.gitignore``, relative to the root ("" for the root)."""
    spec: pathspec.GitIgnoreSpec


def walk_files(
    root: Path,
    *,
    skip_hidden: bool = True,
    gitignore: bool = True,
    exclude_dirs: Collection[str] = (),
    keep: Callable[[str, int], bool] | None = None,
) -> Iterator[WalkEntry]:
    """Regular files under ``root``; ``keep(relative, size)`` filters them before they are
    yielded."""
    root = root.resolve()
    yield from _walk(root, root, "", [], skip_hidden, gitignore, frozenset(exclude_dirs), keep)


def _walk(
    root: Path,
    directory: Path,
    relative: str,
    rules: list[_Rules],
    skip_hidden: bool,
    gitignore: bool,
    exclude_dirs: frozenset[str],
    keep: Callable[[str, int], bool] | None,
) -> Iterator[WalkEntry]:
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return  # unreadable or vanished mid-walk: nothing to list there
    if gitignore:
        rules = _with_gitignore(rules, directory, relative)
    for entry in entries:
        name = entry.name
        if skip_hidden and name.startswith("."):
            continue
        rel = f"{relative}/{name}" if relative else name
        try:
            if entry.is_symlink():
                target = Path(entry.path).resolve()
                if not target.is_relative_to(root) or target.is_dir():
                    continue  # never out of the root, never into a linked directory
            is_dir = entry.is_dir()
            if is_dir:
                if name in exclude_dirs or _ignored(rules, rel, is_dir=True):
                    continue
                yield from _walk(
                    root, Path(entry.path), rel, rules, skip_hidden, gitignore, exclude_dirs, keep
                )
                continue
            if not entry.is_file() or _ignored(rules, rel, is_dir=False):
                continue
            stat = entry.stat()
        except OSError:
            continue  # vanished or unreadable between listing and stat
        if keep is not None and not keep(rel, stat.st_size):
            continue
        yield WalkEntry(Path(entry.path), rel, stat.st_size, stat.st_mtime_ns)


def _with_gitignore(rules: list[_Rules], directory: Path, relative: str) -> list[_Rules]:
    try:
        lines = (
            (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
        )
    except OSError:
        return rules
    # Imported on first use: only listings and imports read ignore files, and the
    # import is a noticeable share of engine start-up.
    import pathspec

    return [*rules, _Rules(relative, pathspec.GitIgnoreSpec.from_lines(lines))]


def _ignored(rules: list[_Rules], rel: str, *, is_dir: bool) -> bool:
    # Deepest .gitignore first: the first one with an opinion decides.
    for rule in reversed(rules):
        local = rel[len(rule.base) + 1 :] if rule.base else rel
        result = rule.spec.check_file(local + "/" if is_dir else local)
        if result.include is not None:
            return bool(result.include)
    return False


__all__ = ["WalkEntry", "walk_files"]
