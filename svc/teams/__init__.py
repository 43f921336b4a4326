"""Agent teams: policy-gated spawning of agent instances that run under budgets.

A spawn (HTTP, the ``spawn_agent`` tool, or the mission bridge) passes the
workspace's spawn policy and templates (``.svc/agent-team/``), then runs as an
:class:`InstanceActor` with its own budget scope under its mission's
:class:`MissionSupervisor`, whose scope holds the mission's totals. Budgets
are trio cancel scopes: exhausting or cancelling one stops everything inside.
``engine.teams`` is the :class:`TeamsService`.
"""

from .capabilities import CapabilityGate, git_subcommands, host_allowed
from .component import TeamsComponent
from .config import POLICY_FILE, TEMPLATES_DIR, TeamConfig, TeamConfigLoader, load_team_config
from .errors import (
    ApprovalNotFound,
    InstanceNotFound,
    InstanceNotRunning,
    InvalidTemplate,
    SpawnDenied,
    TeamConfigInvalid,
    TeamsError,
    TemplateNotFound,
)
from .instance import InstanceActor
from .mission import MissionSupervisor
from .policy import EdgeRule, SkillSources, SpawnPolicy, load_policy
from .records import (
    DEFAULT_MISSION,
    TERMINAL,
    Instance,
    MissionState,
    SpawnApproval,
    SpawnRequest,
)
from .schema import INSTANCE_STATUSES, ROLES, SPAWN_SOURCES, BudgetSpec, Role, SkillRef, parse_role
from .service import SpawnResult, TeamsService
from .skills import EMPTY_SKILL_HASH, compute_skill_hash
from .templates import AgentTemplate, Capabilities
from .tools import SpawnAgentTool

__all__ = [
    "DEFAULT_MISSION",
    "EMPTY_SKILL_HASH",
    "INSTANCE_STATUSES",
    "POLICY_FILE",
    "ROLES",
    "SPAWN_SOURCES",
    "TEMPLATES_DIR",
    "TERMINAL",
    "AgentTemplate",
    "ApprovalNotFound",
    "BudgetSpec",
    "Capabilities",
    "CapabilityGate",
    "EdgeRule",
    "Instance",
    "InstanceActor",
    "InstanceNotFound",
    "InstanceNotRunning",
    "InvalidTemplate",
    "MissionState",
    "MissionSupervisor",
    "Role",
    "SkillRef",
    "SkillSources",
    "SpawnAgentTool",
    "SpawnApproval",
    "SpawnDenied",
    "SpawnPolicy",
    "SpawnRequest",
    "SpawnResult",
    "TeamConfig",
    "TeamConfigInvalid",
    "TeamConfigLoader",
    "TeamsComponent",
    "TeamsError",
    "TeamsService",
    "TemplateNotFound",
    "compute_skill_hash",
    "git_subcommands",
    "host_allowed",
    "load_policy",
    "load_team_config",
    "parse_role",
]
