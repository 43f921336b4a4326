"""The tool registry, allowlist policy, permission rules, and built-in tools."""

from __future__ import annotations

from ..lazy import LazyExports

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
