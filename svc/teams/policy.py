"""The spawn policy: ``.svc/agent-team/spawn-policy.yaml`` in the workspace.

Every key is optional; unknown keys are ignored. ``enabled`` must be true for
any spawn to pass. See ``examples/agent-team/`` for an annotated sample.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from supervisors import BudgetLimits

from .schema import (
    Amount,
    BudgetSpec,
    Count,
    EdgeBehavior,
    Percent,
    Role,
    SkillRef,
    SkillSourceMode,
)
from .yaml_files import read_yaml, structure_document


@attrs.frozen
class EdgeRule:
    """Which roles a parent role may spawn, and how (a missing behavior means ``deny``)."""

    behavior: EdgeBehavior | None = None
    can_spawn: list[Role] = attrs.field(factory=list)


@attrs.frozen
class SkillSources:
    """Where a template's skills may come from, and the hashes they must have."""

    mode: SkillSourceMode = "any"
    allowlist_ids: list[str] = attrs.field(factory=list)
    allowlist_paths: list[str] = attrs.field(factory=list)
    pinned_hashes: dict[str, str] = attrs.field(factory=dict)
    """``id:<skill>`` or ``path:<relative path>`` to ``sha256:<hex>`` (or bare hex)."""


@attrs.frozen
class SpawnPolicy:
    enabled: bool = False
    require_justification: bool = False
    max_agents: Count | None = None
    """Cap on every instance ever spawned (all missions, ended ones included)."""
    max_concurrent: Count | None = None
    """Cap on running instances."""
    child_budget_percent_of_parent_remaining: Percent | None = None
    """A child's budget is capped at this share of what its parent instance has left
    (default 100)."""
    mission_total_budget: BudgetSpec | None = None
    """Mission-wide totals (tokens, steps, tool calls, cost; duration is per instance only)."""
    cost_per_1k_tokens_usd: Amount | None = None
    """A cost rate for agent-team runs when it is above the engine's own rate."""
    push_requires_approval: bool = False
    """Every version-control push of every instance needs a human's approval."""
    spawn_edges: dict[Role, EdgeRule] = attrs.field(factory=dict)
    required_skills: dict[Role, list[SkillRef]] = attrs.field(factory=dict)
    role_defaults: dict[Role, BudgetSpec] = attrs.field(factory=dict)
    skill_sources: SkillSources = attrs.field(factory=SkillSources)

    def mission_limits(self) -> BudgetLimits:
        if self.mission_total_budget is None:
            return BudgetLimits()
        # Duration is an instance limit; a mission has no clock of its own.
        return attrs.evolve(self.mission_total_budget.limits(), max_duration_ms=None)


def load_policy(path: Path) -> SpawnPolicy | None:
    """The policy in ``path``; None when the file does not exist."""
    if not path.is_file():
        return None
    data, node = read_yaml(path)
    return structure_document(SpawnPolicy, data, node, path)


__all__ = ["EdgeRule", "SkillSources", "SpawnPolicy", "load_policy"]
