"""Automation v2: multi-agent DAG automations with per-agent model and tool policy."""

from .dag import ancestors, descendants, find_cycle, ready, waves
from .executor import V2Execution, is_gate
from .records import (
    NODE_STATUSES,
    RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
    AutomationV2,
    AutomationV2Run,
    NodeState,
    definition_hash,
)
from .repository import V2Repository
from .service import TOPIC, V2Service
from .spec import CODE, Definition, canonical_spec, parse_definition
from .tools import ToolScope, expand, node_scope, run_allowed_tools

__all__ = [
    "CODE",
    "NODE_STATUSES",
    "RUN_STATUSES",
    "TERMINAL_RUN_STATUSES",
    "TOPIC",
    "AutomationV2",
    "AutomationV2Run",
    "Definition",
    "NodeState",
    "ToolScope",
    "V2Execution",
    "V2Repository",
    "V2Service",
    "ancestors",
    "canonical_spec",
    "definition_hash",
    "descendants",
    "expand",
    "find_cycle",
    "is_gate",
    "node_scope",
    "parse_definition",
    "ready",
    "run_allowed_tools",
    "waves",
]
