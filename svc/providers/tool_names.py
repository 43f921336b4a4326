"""Tool names as a wire accepts them, and the way back.

Every wire we speak (OpenAI, Anthropic, Cohere) restricts function names to
``[A-Za-z0-9_-]{1,64}``, while our tools are named like ``mcp.github.search``.
:class:`ToolNameMap` assigns each original name a unique wire name and maps the
names the model calls back to the originals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_NAME_LENGTH = 64
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def sanitize_tool_name(name: str) -> str:
    """``name`` with every character outside ``[A-Za-z0-9_-]`` replaced, at most 64 chars."""
    cleaned = _INVALID.sub("_", name)[:MAX_NAME_LENGTH]
    return cleaned or "tool"


class ToolNameMap:
    """A bijection between original tool names and wire names for one request.

    Collisions after sanitizing (``a.b`` and ``a_b``) get ``_2``, ``_3`` ...
    suffixes, in the order the names were given, so a request is deterministic.
    """

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._to_wire: dict[str, str] = {}
        self._to_original: dict[str, str] = {}
        for name in names:
            self.add(name)

    def add(self, name: str) -> str:
        """Register ``name`` (idempotent) and return its wire name."""
        existing = self._to_wire.get(name)
        if existing is not None:
            return existing
        base = sanitize_tool_name(name)
        candidate, n = base, 1
        while candidate in self._to_original:
            n += 1
            suffix = f"_{n}"
            candidate = base[: MAX_NAME_LENGTH - len(suffix)] + suffix
        self._to_wire[name] = candidate
        self._to_original[candidate] = name
        return candidate

    def wire(self, name: str) -> str:
        """The wire name for ``name``; names not offered as tools (history) are added."""
        return self.add(name)

    def original(self, wire_name: str) -> str:
        """The original name for a name the model used (unknown names pass through)."""
        return self._to_original.get(wire_name, wire_name)
