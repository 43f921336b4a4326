"""Tool allowlists: which tools a run (or agent, or connector) may see and call.

Patterns are exact names, ``*`` (everything), or a prefix ending in ``*``
(``mcp.github.*``, ``browser_*``). A view applies an allowlist and a denylist
to the registry: deny wins; an empty or missing allowlist allows everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .registry import ToolRegistry
    from .types import Tool


def normalize_patterns(patterns: Iterable[str] | None) -> list[str]:
    """Trimmed, non-empty, de-duplicated, in first-seen order."""
    seen: dict[str, None] = {}
    for raw in patterns or ():
        if isinstance(raw, str) and raw.strip():
            seen.setdefault(raw.strip(), None)
    return list(seen)


def pattern_matches(pattern: str, name: str) -> bool:
    if pattern == "*" or pattern == name:
        return True
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return False


def matches_any(patterns: Iterable[str], name: str) -> bool:
    return any(pattern_matches(p, name) for p in patterns)


class ToolView:
    """The registry as one run sees it."""

    def __init__(
        self, registry: ToolRegistry, *, allow: Sequence[str] | None, deny: Sequence[str] = ()
    ) -> None:
        self.registry = registry
        self.allow = normalize_patterns(allow) if allow is not None else None
        self.deny = normalize_patterns(deny)

    def allows(self, name: str) -> bool:
        tool = self.registry.get(name)
        names = {name} if tool is None else {name, tool.name}
        if any(matches_any(self.deny, n) for n in names):
            return False
        if not self.allow:
            return True
        return any(matches_any(self.allow, n) for n in names)

    def tools(self) -> list[Tool]:
        return [t for t in self.registry.tools() if self.allows(t.name)]

    def names(self) -> list[str]:
        return [t.name for t in self.tools()]

    def narrowed(self, allow: Sequence[str] | None = None, deny: Sequence[str] = ()) -> ToolView:
        """A view that must pass this one and the extra lists (a policy inside a policy)."""
        return _NestedView(self, allow=allow, deny=deny)


class _NestedView(ToolView):
    def __init__(
        self, outer: ToolView, *, allow: Sequence[str] | None, deny: Sequence[str]
    ) -> None:
        super().__init__(outer.registry, allow=allow, deny=deny)
        self._outer = outer

    def allows(self, name: str) -> bool:
        return self._outer.allows(name) and super().allows(name)
