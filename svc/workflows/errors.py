"""The workflows domain's errors, each with a stable code."""

from __future__ import annotations

from ..errors import Conflict, Forbidden, NotFound, SvcError, ValidationFailed


class WorkflowNotFound(NotFound):
    """Workflow not found"""

    code = "WORKFLOW_NOT_FOUND"


class WorkflowRunNotFound(NotFound):
    """Workflow run not found"""

    code = "WORKFLOW_RUN_NOT_FOUND"


class WorkflowHookNotFound(NotFound):
    """Workflow hook not found"""

    code = "WORKFLOW_HOOK_NOT_FOUND"


class WorkflowDisabled(Conflict):
    """The workflow is disabled"""

    code = "WORKFLOW_DISABLED"


class WorkflowRunNotActive(Conflict):
    """The workflow run has already ended"""

    code = "WORKFLOW_RUN_NOT_ACTIVE"


class GateRequiresHuman(Forbidden):
    """Workflow approval gates must be decided by a human operator"""

    code = "WORKFLOW_GATE_REQUIRES_HUMAN"


class RunNotAwaitingApproval(Conflict):
    """The workflow run is not awaiting approval"""

    code = "WORKFLOW_RUN_NOT_AWAITING_APPROVAL"


class GateInvalidDecision(ValidationFailed):
    """The decision is not one the gate offers"""

    code = "WORKFLOW_GATE_INVALID_DECISION"


class GateExpired(Conflict):
    """The workflow approval gate has expired"""

    code = "WORKFLOW_GATE_EXPIRED"


class GateReplayed(Conflict):
    """The workflow gate was already decided"""

    code = "WORKFLOW_GATE_REPLAYED"


class PlanInvalid(ValidationFailed):
    """The workflow plan is invalid"""

    code = "WORKFLOW_PLAN_INVALID"


class PlanNotFound(NotFound):
    """Workflow plan not found"""

    code = "WORKFLOW_PLAN_NOT_FOUND"


class PlannerSessionNotFound(NotFound):
    """Workflow planner session not found"""

    code = "WORKFLOW_PLANNER_SESSION_NOT_FOUND"


class ImportIncompatible(ValidationFailed):
    """The workflow bundle cannot be imported"""

    code = "WORKFLOW_PLAN_IMPORT_INCOMPATIBLE"


class WorkflowsUnavailable(SvcError):
    """Workflows are not available in this engine"""

    code = "WORKFLOWS_UNAVAILABLE"
    status = 503


class AutomationsUnavailable(SvcError):
    """Automations are not available in this engine"""

    code = "WORKFLOW_AUTOMATIONS_UNAVAILABLE"
    status = 503


__all__ = [
    "AutomationsUnavailable",
    "GateExpired",
    "GateInvalidDecision",
    "GateReplayed",
    "GateRequiresHuman",
    "ImportIncompatible",
    "PlanInvalid",
    "PlanNotFound",
    "PlannerSessionNotFound",
    "RunNotAwaitingApproval",
    "WorkflowDisabled",
    "WorkflowHookNotFound",
    "WorkflowNotFound",
    "WorkflowRunNotActive",
    "WorkflowRunNotFound",
    "WorkflowsUnavailable",
]
