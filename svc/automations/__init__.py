"""Scheduled automations: routines (v1), automation v2 DAGs, the scheduler, approvals, missions."""

from __future__ import annotations

from ..lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".component": [
            "AutomationsComponent",
        ],
        ".errors": [
            "AutomationNotFound",
            "AutomationV2NotFound",
            "AutomationV2RunNotFound",
            "GovernanceDenied",
            "WorkMissionNotFound",
            "RoutineNotFound",
            "RoutinePolicyBlocked",
            "RoutineRequiresHuman",
            "RoutineRunNotFound",
            "RunStateConflict",
        ],
        ".governance": [
            "Governance",
        ],
        ".principal": [
            "HUMAN",
            "Principal",
            "resolve_actor",
            "resolve_principal",
        ],
        ".service": [
            "AutomationService",
        ],
        ".v2": [
            "AutomationV2",
            "AutomationV2Run",
            "NodeState",
            "definition_hash",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
