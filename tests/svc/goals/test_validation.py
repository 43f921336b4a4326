"""Graph validation, dry runs, wait specs and artifact checks: the pure parts of orchestrations."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import attrs
import pytest

from svc.goals.artifacts import contract_problems, enforce_content_policy, shape_problems
from svc.goals.dryrun import dry_run, parse_dry_run
from svc.goals.errors import ArtifactPolicyViolation, InvalidOrchestrationRequest
from svc.goals.orchestration import ArtifactContract, Orchestration, parse_spec
from svc.goals.validation import validate_orchestration
from svc.goals.waitspec import json_pointer, resolve_binding, wait_spec_problems
from tests.svc.goals.specs import linear_spec


def spec_of(body: dict[str, Any], **changes: Any) -> Orchestration:
    parsed = parse_spec(body)
    spec = Orchestration(
        orchestration_id="o",
        name=parsed.name,
        root_node_id=parsed.root_node_id,
        nodes=parsed.nodes,
        edges=parsed.edges,
    )
    return attrs.evolve(spec, **changes) if changes else spec


def codes(spec: Orchestration, *, draft: bool = True) -> list[str]:
    return [issue.code for issue in validate_orchestration(spec, draft=draft).issues]


def test_a_linear_graph_is_valid_as_a_draft() -> None:
    report = validate_orchestration(spec_of(linear_spec(review="wf-review")), draft=True)
    assert report.valid and report.to_wire() == {"valid": True, "issues": []}


def test_publishing_requires_pins_and_a_version() -> None:
    spec = spec_of(linear_spec())
    assert codes(spec, draft=False) == ["invalid_version", "unpinned_workflow", "unpinned_workflow"]
    pinned = attrs.evolve(
        spec,
        version=1,
        status="published",
        published_at_ms=1,
        nodes=[
            attrs.evolve(n, pinned_definition_hash="sha256:" + "a" * 64) if n.is_workflow else n
            for n in spec.nodes
        ],
    )
    assert codes(pinned, draft=False) == []


def test_every_graph_defect_is_reported_with_its_node_or_edge() -> None:
    body = linear_spec()
    body["nodes"].append({"node_id": "plan", "kind": "terminal"})
    body["nodes"].append(
        {
            "node_id": "island",
            "kind": "workflow",
            "automation_id": " ",
            "allowed_transition_keys": ["x", "x"],
        }
    )
    body["edges"].append(
        {
            "edge_id": "e1",
            "from_node_id": "plan",
            "to_node_id": "ghost",
            "transition_key": "planned",
        }
    )
    body["edges"].append(
        {"edge_id": "e5", "from_node_id": "finish", "to_node_id": "plan", "transition_key": "again"}
    )
    body["edges"].append(
        {
            "edge_id": "e6",
            "from_node_id": "plan",
            "to_node_id": "build",
            "transition_key": "undeclared",
            "artifact_contract": {"artifact_type": "binary"},
        }
    )
    report = validate_orchestration(spec_of(body), draft=True)
    found = {(i.code, i.node_id, i.edge_id) for i in report.issues}
    assert ("duplicate_node_id", "plan", None) in found
    assert ("missing_automation_id", "island", None) in found
    assert ("invalid_allowed_transition_key", "island", None) in found
    assert ("duplicate_edge_id", None, "e1") in found
    assert ("unknown_edge_node", None, "e1") in found
    assert ("duplicate_transition_key", "plan", "e1") in found
    assert ("terminal_has_outgoing_edge", "finish", "e5") in found
    assert ("unknown_transition_key", "plan", "e6") in found
    assert ("source_artifact_mismatch", "plan", "e6") in found
    assert ("target_artifact_mismatch", "build", "e6") in found
    assert ("missing_outgoing_transition", "island", None) in found
    assert ("unreachable_node", "island", None) in found
    assert ("no_terminal_path", "island", None) not in found  # unreachable nodes are reported once


def test_root_terminal_and_policy_problems() -> None:
    body = linear_spec(goal_policy={"max_hops": 0, "max_total_tokens": -1})
    body["root_node_id"] = "nowhere"
    body["nodes"] = [n for n in body["nodes"] if n["kind"] != "terminal"]
    body["edges"] = [e for e in body["edges"] if e["to_node_id"] != "finish"]
    parsed = parse_spec(body)
    spec = attrs.evolve(spec_of(body), root_node_id="nowhere", goal_policy=parsed.goal_policy)
    found = codes(spec)
    assert {
        "missing_root",
        "invalid_max_hops",
        "invalid_goal_policy",
        "missing_terminal",
        "missing_outgoing_transition",
    } <= set(found)


def test_a_cycle_without_an_exit_has_no_terminal_path() -> None:
    body = linear_spec()
    body["nodes"][1]["allowed_transition_keys"] = ["done", "back"]
    body["edges"].append(
        {"edge_id": "loop", "from_node_id": "build", "to_node_id": "plan", "transition_key": "back"}
    )
    assert codes(spec_of(body)) == []  # a loop with an exit is fine
    body["edges"] = [e for e in body["edges"] if e["edge_id"] != "e9"]
    body["nodes"][1]["allowed_transition_keys"] = ["back"]
    assert sorted(set(codes(spec_of(body)))) == ["no_terminal_path", "unreachable_node"]


def test_wait_specs_are_validated_and_only_runnable_kinds_gate_a_workflow() -> None:
    good = {
        "kind": "external_condition",
        "condition_key": {"source": "literal", "value": "ci-green"},
        "timeout": {"expires_after_ms": 60_000, "on_timeout": "escalate"},
    }
    assert wait_spec_problems(good) == []
    assert wait_spec_problems(
        {"kind": "external_condition", "condition_key": {"source": "nope"}}
    ) == [
        "external_condition waits require a timeout",
        "condition_key.source must be literal or node_output",
    ]
    assert wait_spec_problems({"kind": "timer"}) == [
        "timer waits need exactly one of delay_ms or wake_at"
    ]
    assert wait_spec_problems({"kind": "approval", "decisions": []}) == [
        "approval waits need a non-empty decisions list"
    ]
    assert codes(spec_of(linear_spec(wait=good))) == []
    approval_gate = {"kind": "approval", "decisions": ["approve"]}
    issues = validate_orchestration(spec_of(linear_spec(wait=approval_gate)), draft=True).issues
    assert [(i.code, i.node_id) for i in issues] == [("invalid_wait", "build")]


def test_bindings_resolve_literals_and_node_outputs() -> None:
    outputs = {"scan": '{"ticket": {"id": "T-7"}}'}
    assert resolve_binding({"source": "literal", "value": "k"}, outputs) == "k"
    assert (
        resolve_binding(
            {"source": "node_output", "node_id": "scan", "json_pointer": "/ticket/id"}, outputs
        )
        == "T-7"
    )
    assert resolve_binding({"source": "node_output", "node_id": "scan"}, outputs) == outputs["scan"]
    assert json_pointer({"a": [1, {"b/c": 2}]}, "/a/1/b~1c") == 2
    assert json_pointer({"a": 1}, "/missing") is None


def test_bad_bodies_name_the_field() -> None:
    with pytest.raises(InvalidOrchestrationRequest) as caught:
        parse_spec({"name": "x", "root_node_id": "a", "nodes": [{"node_id": "a", "kind": "loop"}]})
    assert caught.value.extra["field"] == "nodes[0].kind"
    assert "`loop` is not one of: workflow, wait, terminal" in caught.value.message
    with pytest.raises(InvalidOrchestrationRequest) as caught:
        parse_spec({"root_node_id": "a"})
    assert caught.value.extra["field"] == "name"


def test_dry_run_previews_an_edge() -> None:
    body = linear_spec()
    body["edges"][0]["approval"] = {"required": True}
    spec = spec_of(body)
    allowed = dry_run(
        spec,
        parse_dry_run(
            {"from_node_id": "plan", "transition_key": "planned", "artifact_type": "plan"}
        ),
    )
    assert allowed["allowed"] is True and allowed["issues"] == []
    assert allowed["edge"] == {
        "edge_id": "e1",
        "transition_key": "planned",
        "artifact_contract": {"artifact_type": "plan", "required": True},
        "approval_required": True,
    }
    assert allowed["target"]["node_id"] == "build"
    assert allowed["target"]["kind"]["automation_id"] == "wf-build"
    camel = dry_run(
        spec,
        parse_dry_run({"fromNodeId": "plan", "transitionKey": "planned", "artifactType": "notes"}),
    )
    assert camel["allowed"] is False
    assert camel["issues"] == [
        {"code": "artifact_type_mismatch", "edge_id": "e1", "expected": "plan", "provided": "notes"}
    ]
    missing = dry_run(spec, parse_dry_run({"from_node_id": "plan", "transition_key": "planned"}))
    assert missing["issues"] == [{"code": "artifact_required", "edge_id": "e1"}]
    nothing = dry_run(spec, parse_dry_run({"from_node_id": "ghost", "transition_key": "planned"}))
    assert nothing == {
        "allowed": False,
        "issues": [
            {"code": "unknown_source_node", "node_id": "ghost"},
            {"code": "no_matching_edge", "node_id": "ghost", "transition_key": "planned"},
        ],
    }
    undeclared = dry_run(spec, parse_dry_run({"from_node_id": "plan", "transition_key": "skip"}))
    assert [i["code"] for i in undeclared["issues"]] == [
        "transition_key_not_allowed",
        "no_matching_edge",
    ]


def test_artifact_shape_and_contract() -> None:
    assert shape_problems({"artifact_type": "plan", "value": {"steps": [1]}}) == []
    assert shape_problems({"artifact_type": "plan", "value": "x" * 300_000})[0].startswith(
        "inline artifact value"
    )
    assert shape_problems({"artifact_type": "f", "content_path": "../etc/passwd"}) == [
        "content_path must be a relative path inside the workspace without `..`",
        "content_path requires a content_digest",
    ]
    assert shape_problems({"artifact_type": "f", "content_digest": "abc"}) == [
        "content_digest must be 64 hex digits (optionally prefixed sha256:)"
    ]
    contract = ArtifactContract(
        "plan",
        schema={
            "type": "object",
            "required": ["steps"],
            "properties": {"steps": {"type": "array"}},
        },
        required=True,
    )
    assert contract_problems({"artifact_type": "plan", "value": {"steps": []}}, contract) == []
    assert contract_problems({"artifact_type": "plan"}, contract) == [
        "the contract requires artifact content (value, content_path or content_digest)"
    ]
    assert contract_problems({"artifact_type": "plan", "value": {"steps": "all"}}, contract) == [
        "$.steps must be array"
    ]
    assert contract_problems({"artifact_type": "memo", "value": {}}, contract)[:2] == [
        "artifact_type must be 'plan'",
        "$.steps is required",
    ]
    assert contract_problems(None, contract) == ["the edge requires an artifact"]


def test_content_policy_checks_the_file_and_its_digest(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    report = tmp_path / "out" / "report.md"
    report.write_text("all green")
    good = hashlib.sha256(b"all green").hexdigest()
    enforce_content_policy(
        {
            "artifact_type": "report",
            "content_path": "out/report.md",
            "content_digest": "sha256:" + good.upper(),
        },
        tmp_path,
    )
    with pytest.raises(ArtifactPolicyViolation) as caught:
        enforce_content_policy(
            {
                "artifact_type": "report",
                "content_path": "out/report.md",
                "content_digest": "0" * 64,
            },
            tmp_path,
        )
    assert caught.value.extra["field"] == "artifact.content_digest"
    with pytest.raises(ArtifactPolicyViolation):
        enforce_content_policy(
            {"artifact_type": "report", "content_path": "out/missing.md"}, tmp_path
        )
    outside = tmp_path.parent / "outside.txt"
    outside.write_text("secret")
    (tmp_path / "link.txt").symlink_to(outside)
    with pytest.raises(ArtifactPolicyViolation) as caught:
        enforce_content_policy({"artifact_type": "report", "content_path": "link.txt"}, tmp_path)
    assert "outside the workspace" in caught.value.message
