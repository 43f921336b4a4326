"""Routines (automations v1): scheduled single-agent runs with an explicit tool allowlist."""

from .bodies import AUTOMATION_CODE, ROUTINE_CODE, RoutineFields, is_mission_shaped, parse_body
from .execution import EntrypointHandler, EntrypointResult, RunContext, session_entrypoint
from .policy import external_gate, initial_status, uses_external_integrations
from .prompt import build_prompt, system_contract
from .records import (
    BUSY_RUN_STATUSES,
    RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
    Routine,
    RoutineRun,
)
from .repository import RoutineRepository
from .service import TOPIC, RoutineService

__all__ = [
    "AUTOMATION_CODE",
    "BUSY_RUN_STATUSES",
    "ROUTINE_CODE",
    "RUN_STATUSES",
    "TERMINAL_RUN_STATUSES",
    "TOPIC",
    "EntrypointHandler",
    "EntrypointResult",
    "Routine",
    "RoutineFields",
    "RoutineRepository",
    "RoutineRun",
    "RoutineService",
    "RunContext",
    "build_prompt",
    "external_gate",
    "initial_status",
    "is_mission_shaped",
    "parse_body",
    "session_entrypoint",
    "system_contract",
    "uses_external_integrations",
]
