"""Saved studio workflows migrate to workflow_structure_version 2."""

from __future__ import annotations

from typing import Any

from svc.workflows.studio import RESEARCH_STAGES, migrate_studio_workflow, structure_version


def studio_spec(**studio: Any) -> dict[str, Any]:
    return {
        "name": "Marketing brief",
        "agents": [
            {
                "agent_id": "research",
                "display_name": "Research",
                "model_policy": {"default_model": {"provider_id": "openai", "model_id": "m"}},
                "tool_policy": {"allowlist": ["read", "websearch"], "denylist": ["bash"]},
                "mcp_policy": {"allowed_servers": []},
            },
            {
                "agent_id": "writer",
                "display_name": "Writer",
                "tool_policy": {"allowlist": ["write"], "denylist": []},
                "mcp_policy": {"allowed_servers": []},
            },
        ],
        "flow": {
            "nodes": [
                {"node_id": "intake", "agent_id": "writer", "objective": "Collect the request"},
                {
                    "node_id": "research-brief",
                    "agent_id": "research",
                    "objective": "Research the product.",
                    "depends_on": ["intake"],
                    "metadata": {"studio": {"research": True}},
                },
                {
                    "node_id": "draft",
                    "agent_id": "writer",
                    "objective": "Draft copy",
                    "depends_on": ["research-brief"],
                    "input_refs": [{"from_step_id": "research-brief", "alias": "brief"}],
                },
            ]
        },
        "metadata": {
            "studio": {"version": 1, "node_layout": {"x": 1}, "agent_drafts": [], **studio}
        },
    }


def test_a_research_node_splits_into_the_four_stages() -> None:
    spec, changed = migrate_studio_workflow(studio_spec())
    assert changed and structure_version(spec) == 2
    studio = spec["metadata"]["studio"]
    assert studio["version"] == 2 and "node_layout" not in studio and "agent_drafts" not in studio
    nodes = {n["node_id"]: n for n in spec["flow"]["nodes"]}
    assert list(nodes) == [
        "intake",
        "research-brief-discover",
        "research-brief-local-sources",
        "research-brief-external-research",
        "research-brief",
        "draft",
    ]
    stages = [nodes[n]["metadata"]["studio"]["research_stage"] for n in list(nodes)[1:5]]
    assert tuple(stages) == RESEARCH_STAGES
    assert nodes["research-brief-discover"]["depends_on"] == ["intake"]
    assert nodes["research-brief-external-research"]["depends_on"] == [
        "research-brief-discover",
        "research-brief-local-sources",
    ]
    final = nodes["research-brief"]
    assert final["depends_on"] == [
        "research-brief-discover",
        "research-brief-local-sources",
        "research-brief-external-research",
    ]
    assert [r["alias"] for r in final["input_refs"]] == [
        "source_inventory",
        "local_source_notes",
        "external_research",
    ]
    # Downstream nodes still depend on the original id.
    assert nodes["draft"]["depends_on"] == ["research-brief"]
    agents = {a["agent_id"]: a for a in spec["agents"]}
    assert agents["research-discover"]["tool_policy"] == {
        "allowlist": ["glob", "read"],
        "denylist": ["bash"],
    }
    assert (
        agents["research-external-research"]["model_policy"] == agents["research"]["model_policy"]
    )


def test_bundled_templates_are_recognised_by_their_research_node() -> None:
    spec = studio_spec(template_id="marketing-content-pipeline")
    del spec["flow"]["nodes"][1]["metadata"]
    migrated, changed = migrate_studio_workflow(spec)
    assert changed and len(migrated["flow"]["nodes"]) == 6


def test_version_two_and_non_studio_specs_are_left_alone() -> None:
    migrated, _ = migrate_studio_workflow(studio_spec())
    again, changed = migrate_studio_workflow(migrated)
    assert not changed and again == migrated
    plain = {"name": "x", "agents": [], "flow": {"nodes": []}}
    assert migrate_studio_workflow(plain) == (plain, False) and structure_version(plain) is None


def test_a_studio_workflow_without_research_only_gets_the_new_version() -> None:
    spec = studio_spec()
    del spec["flow"]["nodes"][1]["metadata"]
    migrated, changed = migrate_studio_workflow(spec)
    assert changed and migrated["flow"] == spec["flow"]
    assert migrated["metadata"]["studio"]["workflow_structure_version"] == 2
    assert spec["metadata"]["studio"]["version"] == 1  # the input is not modified
