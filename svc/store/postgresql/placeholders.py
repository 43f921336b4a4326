"""The seam's placeholders (``?`` and ``:name``) in psycopg's style (``%s``, ``%(name)s``).

Repositories write SQL once with SQLite's placeholders; psycopg formats
``%s`` / ``%(name)s`` and treats every other ``%`` as its own, so a literal
``%`` (a ``LIKE 'a%'`` pattern, a ``%`` operator) becomes ``%%``. String
literals, quoted identifiers, comments and dollar-quoted bodies are copied
untouched, and ``::`` (a cast) is never read as a named placeholder.

A statement's translation depends on its text alone, and a program has few
distinct statements that it runs again and again, so translations are cached.
"""

from __future__ import annotations

import functools
import re

# One alternative per token kind; the first that matches at a position wins.
_TOKEN = re.compile(
    r"""
      (?P<estring>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*')  # E'string' (backslash escapes)
    | (?P<squote>'(?:[^']|'')*')               # 'string' ('' escapes a quote)
    | (?P<dquote>"(?:[^"]|"")*")               # "quoted identifier"
    | (?P<line>--[^\n]*)                       # -- comment
    | (?P<block>/\*.*?\*/)                     # /* comment */
    | (?P<dollar>\$(?P<tag>[A-Za-z_]\w*)?\$.*?\$(?(tag)(?P=tag))\$)  # $$ .. $$, $f$ .. $f$
    | (?P<cast>::)                             # a cast, never a placeholder
    | (?P<named>:[A-Za-z_]\w*)                 # :name
    | (?P<positional>\?)                       # ?
    | (?P<percent>%)                           # a literal percent
    """,
    re.VERBOSE | re.DOTALL,
)


class PlaceholderError(ValueError):
    """A statement mixes ``?`` and ``:name`` placeholders."""


@functools.lru_cache(maxsize=2048)
def translate(sql: str) -> str:
    """``sql`` with psycopg placeholders (see the module docstring)."""
    out: list[str] = []
    pos = 0
    styles: set[str] = set()
    for match in _TOKEN.finditer(sql):
        kind = match.lastgroup
        out.append(sql[pos : match.start()])
        text = match.group()
        if kind == "named":
            styles.add("named")
            out.append(f"%({text[1:]})s")
        elif kind == "positional":
            styles.add("positional")
            out.append("%s")
        elif kind == "percent":
            out.append("%%")
        else:
            # psycopg reads every % of the text, inside literals and comments too.
            out.append(text.replace("%", "%%"))
        pos = match.end()
    out.append(sql[pos:])
    if len(styles) > 1:
        raise PlaceholderError(f"a statement mixes ? and :name placeholders: {sql[:80]!r}")
    return "".join(out)


__all__ = ["PlaceholderError", "translate"]
