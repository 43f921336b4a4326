"""The automations domain's errors, each with a stable code."""

from __future__ import annotations

from ..errors import Conflict, Forbidden, NotFound, SvcError


class RoutineNotFound(NotFound):
    """Routine not found"""

    code = "ROUTINE_NOT_FOUND"


class AutomationNotFound(NotFound):
    """Automation not found"""

    code = "AUTOMATION_NOT_FOUND"


class RoutineRunNotFound(NotFound):
    """Routine run not found"""

    code = "ROUTINE_RUN_NOT_FOUND"


class AutomationV2NotFound(NotFound):
    """Automation v2 not found"""

    code = "AUTOMATION_V2_NOT_FOUND"


class AutomationV2RunNotFound(NotFound):
    """Automation v2 run not found"""

    code = "AUTOMATION_V2_RUN_NOT_FOUND"


class RoutineRequiresHuman(Forbidden):
    """Routine creation requires a human actor; agents must use automations v2"""

    code = "ROUTINE_REQUIRES_HUMAN"


class RoutinePolicyBlocked(Forbidden):
    """Routine blocked by policy"""

    code = "ROUTINE_POLICY_BLOCKED"


class RunStateConflict(Conflict):
    """The run is not in a state that allows this."""

    code = "ROUTINE_RUN_STATE_CONFLICT"


class GovernanceDenied(SvcError):
    """Agent governance refused the request (code and status per case)."""

    code = "AUTOMATION_V2_GOVERNANCE_DENIED"
    status = 403


class WorkMissionNotFound(NotFound):
    """Mission not found"""

    code = "MISSION_NOT_FOUND"


__all__ = [
    "AutomationNotFound",
    "AutomationV2NotFound",
    "AutomationV2RunNotFound",
    "GovernanceDenied",
    "RoutineNotFound",
    "RoutinePolicyBlocked",
    "RoutineRequiresHuman",
    "RoutineRunNotFound",
    "RunStateConflict",
    "WorkMissionNotFound",
]
