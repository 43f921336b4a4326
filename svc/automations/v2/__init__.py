"""Automation v2: multi-agent DAG automations with per-agent model and tool policy."""

from __future__ import annotations

from ...lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".dag": [
            "ancestors",
            "descendants",
            "find_cycle",
            "ready",
            "waves",
        ],
        ".executor": [
            "V2Execution",
            "is_gate",
        ],
        ".records": [
            "NODE_STATUSES",
            "RUN_STATUSES",
            "TERMINAL_RUN_STATUSES",
            "AutomationV2",
            "AutomationV2Run",
            "NodeState",
            "definition_hash",
        ],
        ".repository": [
            "V2Repository",
        ],
        ".service": [
            "TOPIC",
            "V2Service",
        ],
        ".spec": [
            "CODE",
            "Definition",
            "canonical_spec",
            "parse_definition",
        ],
        ".tools": [
            "ToolScope",
            "expand",
            "node_scope",
            "run_allowed_tools",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
