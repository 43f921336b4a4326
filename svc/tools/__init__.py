"""The tool registry, allowlist policy, permission rules, and built-in tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

# The names mypy sees (re-exports, hence noqa: F401); at run time each loads with its
# module on first use.
if TYPE_CHECKING:
    from .builtin import builtin_tools, register_builtins  # noqa: F401
    from .paths import PathOutsideWorkspace, resolve_cwd, resolve_in_workspace, workspace_relative  # noqa: F401
    from .permissions import (  # noqa: F401
        DEFAULT_RULES,
        VALID_REPLIES,
        Action,
        PermissionReplyInvalid,
        PermissionRule,
        evaluate,
        reply_allows,
        reply_to_rule,
        wildcard_match,
    )
    from .policy import ToolView, matches_any, normalize_patterns, pattern_matches  # noqa: F401
    from .registry import ToolRegistry  # noqa: F401
    from .schema import validate_args  # noqa: F401
    from .types import (  # noqa: F401
        Tool,
        ToolCapabilities,
        ToolContext,
        ToolDenied,
        ToolFailed,
        ToolNotFound,
        ToolResult,
    )


_exports = LazyExports(
    __name__,
    {
        ".builtin": [
            "builtin_tools",
            "register_builtins",
        ],
        ".paths": [
            "PathOutsideWorkspace",
            "resolve_cwd",
            "resolve_in_workspace",
            "workspace_relative",
        ],
        ".permissions": [
            "DEFAULT_RULES",
            "VALID_REPLIES",
            "Action",
            "PermissionReplyInvalid",
            "PermissionRule",
            "evaluate",
            "reply_allows",
            "reply_to_rule",
            "wildcard_match",
        ],
        ".policy": [
            "ToolView",
            "matches_any",
            "normalize_patterns",
            "pattern_matches",
        ],
        ".registry": [
            "ToolRegistry",
        ],
        ".schema": [
            "validate_args",
        ],
        ".types": [
            "Tool",
            "ToolCapabilities",
            "ToolContext",
            "ToolDenied",
            "ToolFailed",
            "ToolNotFound",
            "ToolResult",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
