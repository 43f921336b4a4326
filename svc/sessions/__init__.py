"""Chat sessions and their runs: the session actor, the agent loop, permissions and questions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

# The names mypy sees (re-exports, hence noqa: F401); at run time each loads with its
# module on first use.
if TYPE_CHECKING:
    from .binding import SessionBinding  # noqa: F401
    from .dispatch import ToolDispatcher, ToolOutcome  # noqa: F401
    from .parts import validate_parts  # noqa: F401
    from .permissions import (  # noqa: F401
        ApprovalReplyInvalid,
        ApprovalRequestNotFound,
        PermissionRequest,
        PermissionService,
    )
    from .questions import QuestionNotFound, QuestionRequest, QuestionService  # noqa: F401
    from .records import (  # noqa: F401
        DEFAULT_TITLE,
        TERMINAL_STATUSES,
        Message,
        ModelRef,
        Run,
        Session,
        Usage,
        attach_hint,
    )
    from .recovery import RunRecovery  # noqa: F401
    from .repository import SessionRepository  # noqa: F401
    from .requests import (  # noqa: F401
        RunConflict,
        RunRequest,
        RunStarted,
        SessionNotFound,
        ToolGate,
        ToolMode,
    )
    from .service import CreateSession, SessionService, SessionServices, request_hash  # noqa: F401

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
            "QuestionRequest",
            "QuestionService",
        ],
        ".recovery": [
            "RunRecovery",
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
            "ToolMode",
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
