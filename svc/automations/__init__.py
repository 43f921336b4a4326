"""Scheduled automations: routines (v1), automation v2 DAGs, the scheduler, approvals, missions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .component import AutomationsComponent as AutomationsComponent
    from .errors import (
        AutomationNotFound as AutomationNotFound,
    )
    from .errors import (
        AutomationV2NotFound as AutomationV2NotFound,
    )
    from .errors import (
        AutomationV2RunNotFound as AutomationV2RunNotFound,
    )
    from .errors import (
        GovernanceDenied as GovernanceDenied,
    )
    from .errors import (
        RoutineNotFound as RoutineNotFound,
    )
    from .errors import (
        RoutinePolicyBlocked as RoutinePolicyBlocked,
    )
    from .errors import (
        RoutineRequiresHuman as RoutineRequiresHuman,
    )
    from .errors import (
        RoutineRunNotFound as RoutineRunNotFound,
    )
    from .errors import (
        RunStateConflict as RunStateConflict,
    )
    from .errors import (
        WorkMissionNotFound as WorkMissionNotFound,
    )
    from .governance import Governance as Governance
    from .principal import (
        HUMAN as HUMAN,
    )
    from .principal import (
        Principal as Principal,
    )
    from .principal import (
        resolve_actor as resolve_actor,
    )
    from .principal import (
        resolve_principal as resolve_principal,
    )
    from .service import AutomationService as AutomationService
    from .v2 import (
        AutomationV2 as AutomationV2,
    )
    from .v2 import (
        AutomationV2Run as AutomationV2Run,
    )
    from .v2 import (
        NodeState as NodeState,
    )
    from .v2 import (
        definition_hash as definition_hash,
    )

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
