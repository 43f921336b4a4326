"""The tool registry, allowlist policy, and built-in tools."""

from .policy import ToolView, matches_any, normalize_patterns, pattern_matches
from .registry import ToolRegistry
from .types import Tool, ToolCapabilities, ToolContext, ToolDenied, ToolFailed, ToolNotFound, ToolResult

__all__ = [
    "Tool",
    "ToolCapabilities",
    "ToolContext",
    "ToolDenied",
    "ToolFailed",
    "ToolNotFound",
    "ToolRegistry",
    "ToolResult",
    "ToolView",
    "matches_any",
    "normalize_patterns",
    "pattern_matches",
]
