"""The built-in tools every engine registers."""

from __future__ import annotations

from ..registry import ToolRegistry
from ..types import Tool
from .base import BuiltinTool
from .bash import BashTool
from .batch import BatchTool
from .edit import EditTool
from .glob import GlobTool
from .grep import GrepTool
from .question import QuestionTool
from .read import ReadTool
from .todo import TodoWriteTool
from .webfetch import WebFetchHtmlTool, WebFetchTool
from .websearch import WebSearchTool
from .write import WriteTool


def builtin_tools() -> list[Tool]:
    """Fresh instances of every built-in tool."""
    return [
        ReadTool(),
        WriteTool(),
        EditTool(),
        GlobTool(),
        GrepTool(),
        BashTool(),
        WebFetchTool(),
        WebFetchHtmlTool(),
        WebSearchTool(),
        TodoWriteTool(),
        QuestionTool(),
        BatchTool(),
    ]


def register_builtins(registry: ToolRegistry, *, replace: bool = False) -> list[str]:
    """Register every built-in; returns their names."""
    names: list[str] = []
    for tool in builtin_tools():
        registry.register(tool, replace=replace)
        names.append(tool.name)
    return names


__all__ = [
    "BashTool",
    "BatchTool",
    "BuiltinTool",
    "EditTool",
    "GlobTool",
    "GrepTool",
    "QuestionTool",
    "ReadTool",
    "TodoWriteTool",
    "WebFetchHtmlTool",
    "WebFetchTool",
    "WebSearchTool",
    "WriteTool",
    "builtin_tools",
    "register_builtins",
]
