"""The spawn decision: the policy checks, in order; the first failure wins.

1. no policy file → ``spawn_policy_missing``;
2. the template: the named one, else the first of the requested role;
3. the parent role: explicit, else the parent instance's (unknown: edges are not checked);
4. ``enabled`` → ``spawn_policy_disabled``; justification → ``spawn_justification_required``;
   ``max_agents`` → ``spawn_max_agents_exceeded``; ``max_concurrent`` →
   ``spawn_max_concurrent_exceeded``; the parent's edge → ``spawn_denied_edge``, or
   ``spawn_requires_approval`` for ``request_only`` (unless a human approved this spawn);
   the role's required skills → ``spawn_required_skill_missing``.

The mission budget, skill sources, pinned hashes and the budget itself are
checked afterwards by the service (they need the mission and the files).
HTTP, the ``spawn_agent`` tool and the mission bridge all go through here.
"""

from __future__ import annotations

import attrs

from .config import TeamConfig
from .errors import SpawnDenied
from .policy import SpawnPolicy
from .records import APPROVAL_CODE, SpawnRequest
from .schema import Role, SkillRef
from .templates import AgentTemplate, default_template


@attrs.frozen
class SpawnCounts:
    total: int
    """Instances ever spawned (every mission, ended ones included)."""
    running: int


def decide(
    config: TeamConfig,
    request: SpawnRequest,
    *,
    parent_role: Role | None,
    counts: SpawnCounts,
    approved: bool = False,
) -> tuple[SpawnPolicy, AgentTemplate]:
    """The policy and template a spawn runs with; SpawnDenied when a check fails."""
    policy = config.policy
    if policy is None:
        raise SpawnDenied(
            "spawn_policy_missing", "spawn policy file missing", policyFile=str(config.policy_path)
        )
    template = config.template(request.template_id, request.role)
    if not policy.enabled:
        raise SpawnDenied("spawn_policy_disabled", "spawn policy is disabled")
    if policy.require_justification and not request.justification.strip():
        raise SpawnDenied(
            "spawn_justification_required", "a justification is required to spawn an agent"
        )
    if policy.max_agents is not None and counts.total >= policy.max_agents:
        raise SpawnDenied(
            "spawn_max_agents_exceeded", f"max_agents reached ({counts.total}/{policy.max_agents})"
        )
    if policy.max_concurrent is not None and counts.running >= policy.max_concurrent:
        raise SpawnDenied(
            "spawn_max_concurrent_exceeded",
            f"max_concurrent reached ({counts.running}/{policy.max_concurrent})",
        )
    if parent_role is not None:
        _check_edge(policy, parent_role, request.role, approved=approved)
    required = policy.required_skills.get(request.role) or []
    for requirement in required:
        if template is None or not any(_satisfies(skill, requirement) for skill in template.skills):
            raise SpawnDenied(
                "spawn_required_skill_missing",
                f"role `{request.role}` requires skill {_describe(requirement)}"
                + ("" if template is not None else " but no template was found"),
                requiredSkill=requirement.to_wire(),
            )
    return policy, template if template is not None else default_template(request.role)


def _check_edge(policy: SpawnPolicy, parent: Role, child: Role, *, approved: bool) -> None:
    edge = policy.spawn_edges.get(parent)
    if edge is None:
        raise SpawnDenied("spawn_denied_edge", f"role `{parent}` has no spawn edge")
    if child not in edge.can_spawn:
        raise SpawnDenied("spawn_denied_edge", f"role `{parent}` may not spawn role `{child}`")
    if edge.behavior == "request_only":
        if not approved:
            raise SpawnDenied(
                APPROVAL_CODE,
                f"spawn for role `{parent}` requires user approval",
                requires_approval=True,
            )
        return
    if edge.behavior != "allow":
        raise SpawnDenied("spawn_denied_edge", f"spawn edge of role `{parent}` denies spawning")


def _satisfies(skill: SkillRef, requirement: SkillRef) -> bool:
    """A template skill meets a requirement when every field the requirement sets is equal."""
    if requirement.id is None and requirement.path is None:
        return True
    if requirement.id is not None and skill.id != requirement.id:
        return False
    return requirement.path is None or skill.path == requirement.path


def _describe(skill: SkillRef) -> str:
    return " ".join(f"{k}={v}" for k, v in skill.to_wire().items()) or "(empty)"


__all__ = ["SpawnCounts", "decide"]
