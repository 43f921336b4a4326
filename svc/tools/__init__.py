"""The tool registry, allowlist policy, permission rules, and built-in tools."""

from .builtin import builtin_tools, register_builtins
from .paths import PathOutsideWorkspace, resolve_cwd, resolve_in_workspace, workspace_relative
from .permissions import (
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
from .policy import ToolView, matches_any, normalize_patterns, pattern_matches
from .registry import ToolRegistry
from .schema import validate_args
from .types import (
    Tool,
    ToolCapabilities,
    ToolContext,
    ToolDenied,
    ToolFailed,
    ToolNotFound,
    ToolResult,
)

__all__ = [
    "DEFAULT_RULES",
    "VALID_REPLIES",
    "Action",
    "PathOutsideWorkspace",
    "PermissionReplyInvalid",
    "PermissionRule",
    "Tool",
    "ToolCapabilities",
    "ToolContext",
    "ToolDenied",
    "ToolFailed",
    "ToolNotFound",
    "ToolRegistry",
    "ToolResult",
    "ToolView",
    "builtin_tools",
    "evaluate",
    "matches_any",
    "normalize_patterns",
    "pattern_matches",
    "register_builtins",
    "reply_allows",
    "reply_to_rule",
    "resolve_cwd",
    "resolve_in_workspace",
    "validate_args",
    "wildcard_match",
    "workspace_relative",
]
