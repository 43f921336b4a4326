"""Chat sessions and their runs: the session actor, the agent loop, permissions and questions."""

from .dispatch import ToolDispatcher, ToolOutcome
from .parts import validate_parts
from .permissions import (
    ApprovalReplyInvalid,
    ApprovalRequestNotFound,
    PermissionRequest,
    PermissionService,
)
from .questions import QuestionNotFound, QuestionService
from .records import (
    DEFAULT_TITLE,
    TERMINAL_STATUSES,
    Message,
    ModelRef,
    Run,
    Session,
    Usage,
    attach_hint,
)
from .repository import SessionRepository
from .requests import RunConflict, RunRequest, RunStarted, SessionNotFound, ToolGate
from .service import CreateSession, SessionService, SessionServices, ask, request_hash

__all__ = [
    "DEFAULT_TITLE",
    "TERMINAL_STATUSES",
    "ApprovalReplyInvalid",
    "ApprovalRequestNotFound",
    "CreateSession",
    "Message",
    "ModelRef",
    "PermissionRequest",
    "PermissionService",
    "QuestionNotFound",
    "QuestionService",
    "Run",
    "RunConflict",
    "RunRequest",
    "RunStarted",
    "Session",
    "SessionNotFound",
    "SessionRepository",
    "SessionService",
    "SessionServices",
    "ToolDispatcher",
    "ToolGate",
    "ToolOutcome",
    "Usage",
    "ask",
    "attach_hint",
    "request_hash",
    "validate_parts",
]
