"""Routines (automations v1): scheduled single-agent runs with an explicit tool allowlist."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...lazy import LazyExports

if TYPE_CHECKING:
    from .bodies import (
        AUTOMATION_CODE as AUTOMATION_CODE,
    )
    from .bodies import (
        ROUTINE_CODE as ROUTINE_CODE,
    )
    from .bodies import (
        RoutineFields as RoutineFields,
    )
    from .bodies import (
        is_mission_shaped as is_mission_shaped,
    )
    from .bodies import (
        parse_body as parse_body,
    )
    from .execution import (
        EntrypointHandler as EntrypointHandler,
    )
    from .execution import (
        EntrypointResult as EntrypointResult,
    )
    from .execution import (
        RunContext as RunContext,
    )
    from .execution import (
        session_entrypoint as session_entrypoint,
    )
    from .policy import (
        external_gate as external_gate,
    )
    from .policy import (
        initial_status as initial_status,
    )
    from .policy import (
        uses_external_integrations as uses_external_integrations,
    )
    from .prompt import build_prompt as build_prompt
    from .prompt import system_contract as system_contract
    from .records import (
        BUSY_RUN_STATUSES as BUSY_RUN_STATUSES,
    )
    from .records import (
        RUN_STATUSES as RUN_STATUSES,
    )
    from .records import (
        TERMINAL_RUN_STATUSES as TERMINAL_RUN_STATUSES,
    )
    from .records import (
        Routine as Routine,
    )
    from .records import (
        RoutineRun as RoutineRun,
    )
    from .repository import RoutineRepository as RoutineRepository
    from .service import TOPIC as TOPIC
    from .service import RoutineService as RoutineService

_exports = LazyExports(
    __name__,
    {
        ".bodies": [
            "AUTOMATION_CODE",
            "ROUTINE_CODE",
            "RoutineFields",
            "is_mission_shaped",
            "parse_body",
        ],
        ".execution": [
            "EntrypointHandler",
            "EntrypointResult",
            "RunContext",
            "session_entrypoint",
        ],
        ".policy": [
            "external_gate",
            "initial_status",
            "uses_external_integrations",
        ],
        ".prompt": [
            "build_prompt",
            "system_contract",
        ],
        ".records": [
            "BUSY_RUN_STATUSES",
            "RUN_STATUSES",
            "TERMINAL_RUN_STATUSES",
            "Routine",
            "RoutineRun",
        ],
        ".repository": [
            "RoutineRepository",
        ],
        ".service": [
            "TOPIC",
            "RoutineService",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
