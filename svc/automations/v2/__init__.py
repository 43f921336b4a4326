"""Automation v2: multi-agent DAG automations with per-agent model and tool policy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...lazy import LazyExports

if TYPE_CHECKING:
    from .dag import (
        ancestors as ancestors,
    )
    from .dag import (
        descendants as descendants,
    )
    from .dag import (
        find_cycle as find_cycle,
    )
    from .dag import (
        ready as ready,
    )
    from .dag import (
        waves as waves,
    )
    from .executor import V2Execution as V2Execution
    from .executor import is_gate as is_gate
    from .records import (
        NODE_STATUSES as NODE_STATUSES,
    )
    from .records import (
        RUN_STATUSES as RUN_STATUSES,
    )
    from .records import (
        TERMINAL_RUN_STATUSES as TERMINAL_RUN_STATUSES,
    )
    from .records import (
        AutomationV2 as AutomationV2,
    )
    from .records import (
        AutomationV2Run as AutomationV2Run,
    )
    from .records import (
        NodeState as NodeState,
    )
    from .records import (
        definition_hash as definition_hash,
    )
    from .repository import V2Repository as V2Repository
    from .service import TOPIC as TOPIC
    from .service import V2Service as V2Service
    from .spec import (
        CODE as CODE,
    )
    from .spec import (
        Definition as Definition,
    )
    from .spec import (
        canonical_spec as canonical_spec,
    )
    from .spec import (
        parse_definition as parse_definition,
    )
    from .tools import (
        ToolScope as ToolScope,
    )
    from .tools import (
        expand as expand,
    )
    from .tools import (
        node_scope as node_scope,
    )
    from .tools import (
        run_allowed_tools as run_allowed_tools,
    )

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
