"""Agent teams: policy-gated spawning of agent instances that run under budgets.

A spawn (HTTP, the ``spawn_agent`` tool, or the mission bridge) passes the
workspace's spawn policy and templates (``.svc/agent-team/``), then runs as an
:class:`InstanceActor` with its own budget scope under its mission's
:class:`MissionSupervisor`, whose scope holds the mission's totals. Budgets
are trio cancel scopes: exhausting or cancelling one stops everything inside.
``engine.teams`` is the :class:`TeamsService`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

# Type checkers see the real names (re-exported, hence the noqa); at run time each is
# imported on first use.
if TYPE_CHECKING:
    from .capabilities import CapabilityGate, git_subcommands, host_allowed  # noqa: F401
    from .component import TeamsComponent  # noqa: F401
    from .config import POLICY_FILE, TEMPLATES_DIR, TeamConfig, TeamConfigLoader, load_team_config  # noqa: F401
    from .errors import (  # noqa: F401
        ApprovalNotFound,
        InstanceNotFound,
        InstanceNotRunning,
        InvalidTemplate,
        SpawnDenied,
        TeamConfigInvalid,
        TeamsError,
        TemplateNotFound,
    )
    from .instance import InstanceActor  # noqa: F401
    from .mission import MissionSupervisor  # noqa: F401
    from .policy import EdgeRule, SkillSources, SpawnPolicy, load_policy  # noqa: F401
    from .records import (  # noqa: F401
        DEFAULT_MISSION,
        TERMINAL,
        Instance,
        MissionState,
        SpawnApproval,
        SpawnRequest,
    )
    from .schema import (  # noqa: F401
        INSTANCE_STATUSES,
        ROLES,
        SPAWN_SOURCES,
        BudgetSpec,
        Role,
        SkillRef,
        parse_role,
    )
    from .service import SpawnResult, TeamsService  # noqa: F401
    from .skills import EMPTY_SKILL_HASH, compute_skill_hash  # noqa: F401
    from .templates import AgentTemplate, Capabilities  # noqa: F401
    from .tools import SpawnAgentTool  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".capabilities": [
            "CapabilityGate",
            "git_subcommands",
            "host_allowed",
        ],
        ".component": [
            "TeamsComponent",
        ],
        ".config": [
            "POLICY_FILE",
            "TEMPLATES_DIR",
            "TeamConfig",
            "TeamConfigLoader",
            "load_team_config",
        ],
        ".errors": [
            "ApprovalNotFound",
            "InstanceNotFound",
            "InstanceNotRunning",
            "InvalidTemplate",
            "SpawnDenied",
            "TeamConfigInvalid",
            "TeamsError",
            "TemplateNotFound",
        ],
        ".instance": [
            "InstanceActor",
        ],
        ".mission": [
            "MissionSupervisor",
        ],
        ".policy": [
            "EdgeRule",
            "SkillSources",
            "SpawnPolicy",
            "load_policy",
        ],
        ".records": [
            "DEFAULT_MISSION",
            "TERMINAL",
            "Instance",
            "MissionState",
            "SpawnApproval",
            "SpawnRequest",
        ],
        ".schema": [
            "INSTANCE_STATUSES",
            "ROLES",
            "SPAWN_SOURCES",
            "BudgetSpec",
            "Role",
            "SkillRef",
            "parse_role",
        ],
        ".service": [
            "SpawnResult",
            "TeamsService",
        ],
        ".skills": [
            "EMPTY_SKILL_HASH",
            "compute_skill_hash",
        ],
        ".templates": [
            "AgentTemplate",
            "Capabilities",
        ],
        ".tools": [
            "SpawnAgentTool",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
