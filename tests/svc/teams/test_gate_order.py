"""The spawn checks run in the reference's order: with several failing, the first one wins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

import svc
from svc.teams import (
    AgentTemplate,
    EdgeRule,
    SkillRef,
    SpawnDenied,
    SpawnPolicy,
    SpawnRequest,
    TeamConfig,
)
from svc.teams.gate import SpawnCounts, decide
from tests.svc.teams.conftest import OPEN_POLICY, WORKER


def code_of(
    config: TeamConfig, request: SpawnRequest, counts: SpawnCounts, *, approved: bool = False
) -> str | None:
    try:
        decide(config, request, parent_role="worker", counts=counts, approved=approved)
    except SpawnDenied as denied:
        return denied.code
    return None


def test_the_first_failing_check_wins(workspace: Path) -> None:
    # Every check fails; fixing them one at a time walks the reference's order.
    policy = SpawnPolicy(
        enabled=False,
        require_justification=True,
        max_agents=2,
        max_concurrent=1,
        spawn_edges={"worker": EdgeRule(behavior="deny", can_spawn=["tester"])},
        required_skills={"tester": [SkillRef(id="testing")]},
    )
    plain = AgentTemplate(template_id="tester-plain", role="tester")
    config = TeamConfig(
        workspace=workspace, policy=policy, templates={"tester-plain": plain}, files={}
    )
    request = SpawnRequest(role="tester", justification=" ")
    full = SpawnCounts(total=2, running=1)

    assert code_of(attrs.evolve(config, policy=None), request, full) == "spawn_policy_missing"
    assert code_of(config, request, full) == "spawn_policy_disabled"
    policy = attrs.evolve(policy, enabled=True)
    assert (
        code_of(attrs.evolve(config, policy=policy), request, full)
        == "spawn_justification_required"
    )
    request = attrs.evolve(request, justification="needed")
    assert (
        code_of(attrs.evolve(config, policy=policy), request, full) == "spawn_max_agents_exceeded"
    )
    policy = attrs.evolve(policy, max_agents=None)
    assert (
        code_of(attrs.evolve(config, policy=policy), request, full)
        == "spawn_max_concurrent_exceeded"
    )
    policy = attrs.evolve(policy, max_concurrent=None)
    assert code_of(attrs.evolve(config, policy=policy), request, full) == "spawn_denied_edge"
    asking = attrs.evolve(
        policy, spawn_edges={"worker": EdgeRule(behavior="request_only", can_spawn=["tester"])}
    )
    assert code_of(attrs.evolve(config, policy=asking), request, full) == "spawn_requires_approval"
    # An approved spawn passes the edge, and meets the next check.
    assert (
        code_of(attrs.evolve(config, policy=asking), request, full, approved=True)
        == "spawn_required_skill_missing"
    )
    policy = attrs.evolve(
        policy, spawn_edges={"worker": EdgeRule(behavior="allow", can_spawn=["tester"])}
    )
    assert (
        code_of(attrs.evolve(config, policy=policy), request, full)
        == "spawn_required_skill_missing"
    )
    skilled = attrs.evolve(plain, skills=[SkillRef(id="testing", path="skills/testing.md")])
    config = attrs.evolve(config, policy=policy, templates={"tester-plain": skilled})
    assert code_of(config, request, full) is None


def test_without_a_known_parent_role_edges_are_not_checked(workspace: Path) -> None:
    policy = SpawnPolicy(enabled=True, spawn_edges={})
    config = TeamConfig(workspace=workspace, policy=policy, templates={}, files={})
    _, template = decide(
        config, SpawnRequest(role="tester"), parent_role=None, counts=SpawnCounts(0, 0)
    )
    assert template.template_id == "default-template" and template.role == "tester"
    with pytest.raises(SpawnDenied) as denied:
        decide(config, SpawnRequest(role="tester"), parent_role="worker", counts=SpawnCounts(0, 0))
    assert denied.value.code == "spawn_denied_edge"


async def test_the_mission_budget_is_checked_after_the_gate_and_before_the_skills(
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
    workspace: Path,
) -> None:
    write_template({"templateID": "tester-x", "role": "tester", "skills": [{"id": "testing"}]})
    policy = {
        "enabled": True,
        "required_skills": {"tester": [{"id": "reviewing"}]},
        "mission_total_budget": {"max_tool_calls": 0},
        "skill_sources": {"mode": "project_only"},
    }

    async def code() -> str | None:
        result = await engine.teams.spawn(SpawnRequest(role="tester", mission_id="m-order"))
        return None if result.ok else result.body["code"]

    write_policy(policy)
    assert (
        await code() == "spawn_required_skill_missing"
    )  # the gate's: the template lacks `reviewing`
    del policy["required_skills"]
    write_policy(policy)
    assert await code() == "spawn_mission_budget_exceeded"
    del policy["mission_total_budget"]
    write_policy(policy)
    assert await code() == "spawn_skill_source_denied"  # project_only forbids skill ids
    policy["skill_sources"] = {"mode": "any", "pinned_hashes": {"id:testing": "sha256:00"}}
    write_policy(policy)
    assert await code() == "spawn_required_skill_missing"  # the skill file does not exist
    skill = workspace / ".svc" / "skills" / "testing" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: testing\ndescription: writes tests\n---\nTest first.\n")
    assert await code() == "spawn_skill_hash_mismatch"
    del policy["skill_sources"]
    write_policy(policy)
    assert await code() is None


async def test_a_broken_template_refuses_spawns_naming_its_file_and_line(
    engine: svc.Engine,
    write_policy: Callable[..., Path],
    write_template: Callable[..., Path],
) -> None:
    write_policy(OPEN_POLICY)
    write_template(WORKER)
    broken = write_template(
        "templateID: broken\nrole: worker\ncapabilities:\n  tool_allowlist: 7\n", name="broken.yaml"
    )
    result = await engine.teams.spawn(SpawnRequest(role="worker"))
    assert result.status == 403
    assert result.body["code"] == "spawn_policy_missing"
    assert result.body["error"].startswith(f"spawn policy load failed: {broken}:")
    assert result.body["file"] == str(broken) and result.body["line"] == 4
    assert result.body["field"] == "capabilities.tool_allowlist"
