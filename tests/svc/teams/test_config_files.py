"""Loading the spawn policy and the templates: schema, defaults, and errors with file and line."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from supervisors import BudgetLimits, BudgetUsage
from svc.teams import (
    BudgetSpec,
    TeamConfigInvalid,
    TeamConfigLoader,
    compute_skill_hash,
    load_team_config,
)
from svc.teams.budgets import mission_spent, resolve_budget
from svc.teams.policy import SpawnPolicy

POLICY = """\
enabled: true
require_justification: true
max_agents: 12
max_concurrent: 4
child_budget_percent_of_parent_remaining: 50
cost_per_1k_tokens_usd: 0.02
mission_total_budget:
  max_tokens: 60000
  max_duration_ms: 1000
spawn_edges:
  orchestrator: {behavior: allow, can_spawn: [delegator, worker]}
  worker: {behavior: request_only, can_spawn: [tester]}
required_skills:
  worker:
    - id: python-editing
role_defaults:
  worker: {max_tokens: 12000, max_steps: 8}
skill_sources:
  mode: allowlist
  allowlist_ids: [python-editing]
  pinned_hashes:
    "id:python-editing": "sha256:9f2c"
some_future_key: ignored
"""


def test_the_reference_shaped_policy_loads(
    workspace: Path, write_policy: Callable[..., Path]
) -> None:
    write_policy(POLICY)
    policy = load_team_config(workspace).policy
    assert policy is not None
    assert policy.enabled and policy.require_justification and policy.max_agents == 12
    assert policy.spawn_edges["worker"].behavior == "request_only"
    assert policy.spawn_edges["orchestrator"].can_spawn == ["delegator", "worker"]
    assert policy.required_skills["worker"][0].id == "python-editing"
    assert policy.skill_sources.pinned_hashes == {"id:python-editing": "sha256:9f2c"}
    # A mission has no clock of its own: duration is an instance limit.
    assert policy.mission_limits() == BudgetLimits(max_tokens=60000)


def test_no_policy_file_and_an_empty_one(
    workspace: Path, write_policy: Callable[..., Path]
) -> None:
    assert load_team_config(workspace).policy is None
    write_policy("")
    assert load_team_config(workspace).policy == SpawnPolicy()


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("enabled: true\nmax_agents: -2\n", 2, "max_agents", "must be at least 0"),
        (
            "enabled: true\nrole_defaults:\n  worker:\n    max_tokens: lots\n",
            4,
            "role_defaults[worker].max_tokens",
            "expected an integer",
        ),
        (
            "spawn_edges:\n  pilot: {behavior: allow}\n",
            2,
            "spawn_edges[pilot]",
            "must be one of orchestrator",
        ),
        (
            "child_budget_percent_of_parent_remaining: 150\n",
            1,
            "child_budget_percent_of_parent_remaining",
            "must be at most 100",
        ),
        ("- just\n- a list\n", 1, None, "must be a mapping"),
    ],
)
def test_schema_errors_name_file_field_and_line(
    workspace: Path,
    write_policy: Callable[..., Path],
    text: str,
    line: int,
    field: str | None,
    message: str,
) -> None:
    path = write_policy(text)
    with pytest.raises(TeamConfigInvalid) as caught:
        load_team_config(workspace)
    error = caught.value
    assert error.extra["file"] == str(path) and error.extra["line"] == line
    assert error.extra.get("field") == field
    assert message in error.message and error.message.startswith(str(path))


def test_syntax_errors_name_line_and_column(
    workspace: Path, write_template: Callable[..., Path]
) -> None:
    path = write_template(
        "templateID: t\nrole: worker\ncapabilities:\n  tool_allowlist: [read\n", name="t.yaml"
    )
    with pytest.raises(TeamConfigInvalid) as caught:
        load_team_config(workspace)
    assert caught.value.extra["file"] == str(path) and caught.value.extra["line"] == 5
    assert caught.value.extra["column"] is not None


def test_templates_are_keyed_by_id_and_default_to_least_capabilities(
    workspace: Path,
    write_template: Callable[..., Path],
) -> None:
    write_template("templateID: a\nrole: worker\n", name="1.yml")
    write_template(
        '{"templateID": "b", "role": "tester", "default_budget": {"max_cost_usd": 1}}',
        name="2.json",
    )
    write_template("templateID: a\nrole: reviewer\n", name="3.yaml")
    write_template("not: a template\n", name="notes.txt")
    config = load_team_config(workspace)
    assert sorted(config.templates) == ["a", "b"]
    assert config.templates["a"].role == "reviewer"  # the later file wins
    assert config.templates["b"].default_budget is not None
    caps = config.templates["a"].capabilities
    assert (
        caps.tool_allowlist,
        caps.fs_scopes.read,
        caps.net_scopes.enabled,
        caps.git_caps.push,
    ) == ([], [], False, False)
    assert config.template(None, "tester") is config.templates["b"]
    assert config.template(None, "watcher") is None

    write_template("role: worker\n", name="4.yaml")
    with pytest.raises(TeamConfigInvalid) as caught:
        load_team_config(workspace)
    assert caught.value.extra["field"] == "template_id"


async def test_the_loader_rereads_changed_files(
    workspace: Path, write_policy: Callable[..., Path]
) -> None:
    loader = TeamConfigLoader(lambda: workspace)
    write_policy("enabled: false\n")
    first = await loader.load()
    assert await loader.load() is first
    write_policy("enabled: true\nmax_agents: 3\n")
    second = await loader.load()
    assert second is not first and second.policy is not None and second.policy.max_agents == 3


def test_budget_resolution_layers_and_parent_caps() -> None:
    policy = SpawnPolicy(role_defaults={"worker": BudgetSpec(max_tokens=100, max_steps=5)})
    assert resolve_budget(
        policy, "worker", BudgetLimits(max_steps=7, max_cost_usd=2.0), BudgetLimits(max_tokens=50)
    ) == BudgetLimits(max_tokens=50, max_steps=7, max_cost_usd=2.0)
    assert resolve_budget(policy, "tester", None, None) == BudgetLimits()
    left = BudgetLimits(max_tokens=41, max_cost_usd=1.0, max_duration_ms=1000)
    assert resolve_budget(policy, "worker", None, None, parent_remaining=left) == BudgetLimits(
        max_tokens=41, max_steps=5, max_cost_usd=1.0, max_duration_ms=1000
    )
    half = SpawnPolicy(
        role_defaults=policy.role_defaults, child_budget_percent_of_parent_remaining=50
    )
    assert resolve_budget(half, "worker", None, None, parent_remaining=left) == BudgetLimits(
        max_tokens=20, max_steps=5, max_cost_usd=0.5, max_duration_ms=500
    )


def test_a_spent_mission_takes_no_new_instance() -> None:
    limits = BudgetLimits(max_tokens=100, max_cost_usd=1.0)
    assert mission_spent(limits, BudgetUsage(tokens=99, cost_usd=0.5)) is None
    assert (
        mission_spent(limits, BudgetUsage(tokens=100)) == "mission max_tokens exhausted (100/100)"
    )
    assert (
        mission_spent(limits, BudgetUsage(cost_usd=1.5)) == "mission max_cost_usd exhausted (1.5/1)"
    )
    assert mission_spent(BudgetLimits(), BudgetUsage(tokens=10**9)) is None


def test_the_sample_configuration_loads_and_hashes(workspace: Path) -> None:
    sample = Path(__file__).resolve().parents[3] / "examples" / "agent-team"
    team_dir = workspace / ".svc" / "agent-team"
    shutil.copytree(sample / "templates", team_dir / "templates")
    shutil.copy(sample / "spawn-policy.yaml", team_dir / "spawn-policy.yaml")
    shutil.copytree(sample / "skills", workspace / ".svc" / "skills")
    config = load_team_config(workspace)
    assert (
        config.policy is not None and config.policy.enabled and config.policy.push_requires_approval
    )
    assert sorted(config.templates) == ["researcher", "tester-default", "worker-python"]
    worker = config.templates["worker-python"]
    assert worker.capabilities.git_caps.push_requires_approval
    skill = (workspace / ".svc" / "skills" / "python-editing" / "SKILL.md").read_bytes()
    row = f"id:python-editing:{hashlib.sha256(skill).hexdigest()}\n".encode()
    expected = "sha256:" + hashlib.sha256(row).hexdigest()
    assert (
        compute_skill_hash(
            worker.skills, config.policy.skill_sources, workspace=workspace, home=None
        )
        == expected
    )
