"""Chat sessions and their runs: the session actor, the agent loop, permissions and questions."""

from __future__ import annotations

from ..lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".binding": [
            "SessionBinding",
        ],
        ".dispatch": [
            "ToolDispatcher",
            "ToolOutcome",
        ],
        ".parts": [
            "validate_parts",
        ],
        ".permissions": [
            "ApprovalReplyInvalid",
            "ApprovalRequestNotFound",
            "PermissionRequest",
            "PermissionService",
        ],
        ".questions": [
            "QuestionNotFound",
            "QuestionService",
        ],
        ".records": [
            "DEFAULT_TITLE",
            "TERMINAL_STATUSES",
            "Message",
            "ModelRef",
            "Run",
            "Session",
            "Usage",
            "attach_hint",
        ],
        ".repository": [
            "SessionRepository",
        ],
        ".requests": [
            "RunConflict",
            "RunRequest",
            "RunStarted",
            "SessionNotFound",
            "ToolGate",
        ],
        ".service": [
            "CreateSession",
            "SessionService",
            "SessionServices",
            "request_hash",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
