"""The global tool registry: built-ins and remote (MCP) tools by name.

Registration is synchronous and cheap; listeners hear about every change (the
MCP connector announces ``mcp.tools.updated`` through one). A run never holds
the registry itself: it takes a :class:`ToolView` filtered by its allowlist, so
a disallowed tool's schema is never even serialised for the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .policy import ToolView
from .types import Tool, ToolNotFound


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._aliases: dict[str, str] = {}
        self._listeners: list[Callable[[], None]] = []
        self.version = 0
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool, *, replace: bool = False) -> None:
        """Add ``tool``; a second tool with the same name needs ``replace=True``."""
        if tool.name in self._tools and not replace:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._remove(tool.name)
        self._tools[tool.name] = tool
        for alias in tool.aliases:
            self._aliases.setdefault(alias, tool.name)
        self._changed()

    def unregister(self, name: str) -> bool:
        removed = self._remove(name)
        if removed:
            self._changed()
        return removed

    def unregister_prefix(self, prefix: str) -> list[str]:
        """Remove every tool whose name starts with ``prefix`` (``mcp.github.``)."""
        names = [n for n in self._tools if n.startswith(prefix)]
        for name in names:
            self._remove(name)
        if names:
            self._changed()
        return names

    def _remove(self, name: str) -> bool:
        tool = self._tools.pop(name, None)
        if tool is None:
            return False
        for alias in tool.aliases:
            if self._aliases.get(alias) == name:
                del self._aliases[alias]
        return True

    def get(self, name: str) -> Tool | None:
        """The tool called ``name`` (or by that alias)."""
        tool = self._tools.get(name)
        if tool is None and name in self._aliases:
            tool = self._tools.get(self._aliases[name])
        return tool

    def require(self, name: str) -> Tool:
        tool = self.get(name)
        if tool is None:
            raise ToolNotFound(f"unknown tool `{name}`", tool=name)
        return tool

    def canonical(self, name: str) -> str | None:
        tool = self.get(name)
        return tool.name if tool else None

    def names(self) -> list[str]:
        return sorted(self._tools)

    def tools(self) -> list[Tool]:
        return [self._tools[n] for n in sorted(self._tools)]

    def view(self, allow: Sequence[str] | None = None, deny: Sequence[str] = ()) -> ToolView:
        return ToolView(self, allow=allow, deny=deny)

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` after every change; returns a function that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        self.version += 1
        for listener in list(self._listeners):
            listener()

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __len__(self) -> int:
        return len(self._tools)
