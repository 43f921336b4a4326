"""Scheduled automations: routines (v1), automation v2 DAGs, the scheduler, approvals, missions."""

from .component import AutomationsComponent
from .errors import (
    AutomationNotFound,
    AutomationV2NotFound,
    AutomationV2RunNotFound,
    GovernanceDenied,
    MissionNotFound,
    RoutineNotFound,
    RoutinePolicyBlocked,
    RoutineRequiresHuman,
    RoutineRunNotFound,
    RunStateConflict,
)
from .governance import Actor, Governance, resolve_actor
from .service import AutomationService
from .v2 import AutomationV2, AutomationV2Run, NodeState, definition_hash

__all__ = [
    "Actor",
    "AutomationNotFound",
    "AutomationService",
    "AutomationV2",
    "AutomationV2NotFound",
    "AutomationV2Run",
    "AutomationV2RunNotFound",
    "AutomationsComponent",
    "Governance",
    "GovernanceDenied",
    "MissionNotFound",
    "NodeState",
    "RoutineNotFound",
    "RoutinePolicyBlocked",
    "RoutineRequiresHuman",
    "RoutineRunNotFound",
    "RunStateConflict",
    "definition_hash",
    "resolve_actor",
]
