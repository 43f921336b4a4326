"""Tool IDs: ``mcp.<server>.<tool>`` slugs, and a connector's ``allowed_tools`` filter.

Slug rule: ASCII letters and digits are kept (lower-cased); every run of any other
characters (``-``, ``.``, spaces, non-ASCII) becomes one ``_``; leading and trailing
``_`` are stripped; an empty result falls back to ``server`` or ``tool``.
``Clickup_CreateTask`` -> ``clickup_createtask``, ``My Server!!`` -> ``my_server``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..tools import pattern_matches

PREFIX = "mcp."
_OTHER = re.compile(r"[^a-z0-9]+")


def slug(text: str, *, fallback: str = "tool") -> str:
    lowered = "".join(ch.lower() if ch.isascii() else "-" for ch in text.strip())
    return _OTHER.sub("_", lowered).strip("_") or fallback


def server_slug(name: str) -> str:
    return slug(name, fallback="server")


def server_prefix(name: str) -> str:
    """``mcp.<server_slug>.``: every tool of this connector starts with it."""
    return f"{PREFIX}{server_slug(name)}."


def namespaced(server: str, tool: str) -> str:
    return f"{server_prefix(server)}{slug(tool)}"


def assign_ids(server: str, tool_names: Iterable[str]) -> dict[str, str]:
    """Raw tool name -> tool ID, unique within the server.

    Two remote names can slug alike (``Get-Item``, ``get_item``); the later one gets
    ``_2`` (``_3`` ...) instead of silently replacing the first.
    """
    ids: dict[str, str] = {}
    used: set[str] = set()
    for name in tool_names:
        base = namespaced(server, name)
        candidate, n = base, 2
        while candidate in used:
            candidate, n = f"{base}_{n}", n + 1
        used.add(candidate)
        ids[name] = candidate
    return ids


def tool_allowed(allowed: Sequence[str] | None, *, server: str, tool: str, tool_id: str) -> bool:
    """The connector-level ``allowed_tools`` check.

    Absent (None) allows every tool; an empty list allows none. An entry matches
    the raw remote name or the tool ID, exactly or as a ``prefix*`` pattern
    (``*``, ``mcp.<server>.*``, ``Gmail_*``).
    """
    if allowed is None:
        return True
    return any(pattern_matches(p, tool) or pattern_matches(p, tool_id) for p in allowed)


__all__ = [
    "PREFIX",
    "assign_ids",
    "namespaced",
    "server_prefix",
    "server_slug",
    "slug",
    "tool_allowed",
]
