"""Routines (automations v1): scheduled single-agent runs with an explicit tool allowlist."""

from __future__ import annotations

from ...lazy import LazyExports

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
