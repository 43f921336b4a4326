"""Glob patterns over workspace trees (``*``, ``?``, ``[abc]``, ``**``).

Our own small matcher rather than :mod:`pathlib` globbing, because the tools
need to prune ``.git`` while walking (not filter it afterwards), keep symlinked
directories from being followed, and bound the work on huge trees.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

# Never worth listing or searching, and often huge.
SKIP_DIRS = frozenset({".git"})
GLOB_CHARS = frozenset("*?[")


def has_magic(segment: str) -> bool:
    return any(ch in GLOB_CHARS for ch in segment)


def split_pattern(pattern: str) -> tuple[str, str]:
    """Split ``src/**/*.py`` into the literal base ``src`` and the glob ``**/*.py``.

    The base is an ordinary path (it may be absolute or contain ``..``; the caller
    confines it); the glob part is relative to it.
    """
    segments = pattern.replace("\\", "/").split("/")
    literal: list[str] = []
    for index, segment in enumerate(segments):
        if has_magic(segment):
            rest = "/".join(segments[index:])
            base = "/".join(literal)
            return (base or ("/" if pattern.startswith("/") else ".")), rest
        literal.append(segment)
    return pattern, ""


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex matching relative POSIX paths against ``pattern``."""
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            # ``a/**`` matches everything below a; ``**/b`` matches b at any depth.
            out.append(".*" if last else "(?:.*/)?")
            continue
        out.append(_translate_segment(segment) + ("" if last else "/"))
    return re.compile("".join(out), re.DOTALL)


def _translate_segment(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = segment[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                out.append("[" + ("^/" if negate else "") + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def matches(pattern: str, relative: str) -> bool:
    return glob_regex(pattern).fullmatch(relative) is not None


def walk(
    root: Path, *, max_depth: int | None = None, limit: int | None = None
) -> Iterator[tuple[str, bool]]:
    """Yield ``(relative_posix_path, is_dir)`` below ``root``, skipping ``.git``.

    Symlinked directories are listed but not entered (they may point anywhere).
    Stops after ``limit`` entries.
    """
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        depth = 0 if rel_dir == "." else rel_dir.count("/") + 1
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name, is_dir in [(d, True) for d in dirnames] + [(f, False) for f in sorted(filenames)]:
            yield (name if rel_dir == "." else f"{rel_dir}/{name}"), is_dir
            seen += 1
            if limit is not None and seen >= limit:
                return
        if max_depth is not None and depth + 1 >= max_depth:
            dirnames[:] = []


def pattern_depth(pattern: str) -> int | None:
    """How deep a walk must go for ``pattern`` (None: unbounded, it has ``**``)."""
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    return None if "**" in segments else len(segments)


__all__ = [
    "SKIP_DIRS",
    "glob_regex",
    "has_magic",
    "matches",
    "pattern_depth",
    "split_pattern",
    "walk",
]
