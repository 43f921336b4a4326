"""Agent-team errors. Their bodies carry ``ok: false`` like every agent-team failure."""

from __future__ import annotations

from typing import Any

from ..errors import SvcError


class TeamsError(SvcError):
    """An agent-team request failed."""

    code = "AGENT_TEAM_ERROR"
    status = 400

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        # Agent-team bodies are {ok: false, code, error, ...}; the standard
        # envelope adds `retryable`, and `ok` makes both shapes readable.
        self.extra = {"ok": False, **self.extra}


class TeamConfigInvalid(TeamsError):
    """The spawn policy or a template file is invalid."""

    code = "TEMPLATE_LOAD_FAILED"
    status = 422


class SpawnDenied(TeamsError):
    """The spawn policy refused the spawn (``code`` says which check)."""

    code = "spawn_denied"
    status = 403

    def __init__(
        self, code: str, message: str, *, requires_approval: bool = False, **extra: Any
    ) -> None:
        super().__init__(message, code=code, requiresUserApproval=requires_approval, **extra)

    @property
    def requires_approval(self) -> bool:
        return bool(self.extra.get("requiresUserApproval"))


class InstanceNotFound(TeamsError):
    """Agent instance not found"""

    code = "INSTANCE_NOT_FOUND"
    status = 404


class InstanceNotRunning(TeamsError):
    """The agent instance is not running"""

    code = "INSTANCE_NOT_RUNNING"
    status = 409


class ApprovalNotFound(TeamsError):
    """Spawn approval not found"""

    code = "APPROVAL_NOT_FOUND"
    status = 404


class TemplateNotFound(TeamsError):
    """Agent template not found"""

    code = "TEMPLATE_NOT_FOUND"
    status = 404


class InvalidTemplate(TeamsError):
    """The template is invalid"""

    code = "INVALID_TEMPLATE"
    status = 400


__all__ = [
    "ApprovalNotFound",
    "InstanceNotFound",
    "InstanceNotRunning",
    "InvalidTemplate",
    "SpawnDenied",
    "TeamConfigInvalid",
    "TeamsError",
    "TemplateNotFound",
]
