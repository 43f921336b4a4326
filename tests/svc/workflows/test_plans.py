"""Plans, plan packages, bundles, imports and overlap: the planner's pure parts."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from svc.workflows.errors import PlanInvalid
from svc.workflows.materialize import plan_to_automation
from svc.workflows.overlap import analyze_overlap
from svc.workflows.plan_bodies import parse_plan_body
from svc.workflows.plan_import import plan_from_import, preview_import, validate_bundle
from svc.workflows.plan_normalization import PlanContext, normalize_plan
from svc.workflows.plan_package import compile_package, export_bundle, scope_snapshot
from svc.workflows.plan_package_replay import compare_replay
from svc.workflows.plan_package_validation import validate_package
from svc.workflows.schedule import normalize_schedule

CTX = PlanContext(
    plan_id="wfplan-1",
    prompt="Summarise new GitHub issues every morning",
    workspace_root="/srv/ws",
    allowed_mcp_servers=("github",),
)

RAW = {
    "title": "Issue digest",
    "schedule": {
        "type": "cron",
        "cronExpression": "0 9 * * 1-5",
        "timezone": "Europe/Paris",
        "misfirePolicy": "skip",
    },
    "steps": [
        {
            "id": "Collect Issues",
            "kind": "research",
            "objective": "List new issues with mcp.github tools",
            "agentRole": "researcher",
        },
        {
            "stepId": "write_digest",
            "objective": "Write digest.md",
            "agent_role": "writer",
            "inputRefs": ["Collect Issues"],
            "output_contract": {"kind": "report_markdown"},
        },
    ],
    "requires_integrations": ["github"],
}


def plan() -> Any:
    return normalize_plan(parse_plan_body(RAW), CTX)


def test_loose_plans_are_normalized() -> None:
    p = plan()
    assert [s.step_id for s in p.steps] == ["collect_issues", "write_digest"]
    digest = p.steps[1]
    assert (
        digest.depends_on == ("collect_issues",)
        and digest.input_refs[0].from_step_id == "collect_issues"
    )
    assert digest.agent_role == "writer" and p.steps[0].kind == "research"
    assert p.schedule == {
        "type": "cron",
        "timezone": "Europe/Paris",
        "misfire_policy": {"type": "skip"},
        "cron_expression": "0 9 * * 1-5",
    }
    assert p.allowed_mcp_servers == ("github",) and p.workspace_root == "/srv/ws"
    assert p.normalized_prompt == "summarise new github issues every morning"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r["steps"][1].update(depends_on=["nope"]), "plan.steps[1].depends_on"),
        (lambda r: r["steps"][0].update(depends_on=["write_digest"]), "plan.steps[0].depends_on"),
        (lambda r: r["steps"][0].update(objective=" "), "plan.steps[0].objective"),
        (lambda r: r.update(steps=[]), "plan.steps"),
        (lambda r: r.update(steps=[{"objective": f"s{i}"} for i in range(9)]), "plan.steps"),
        (
            lambda r: r.update(schedule={"type": "cron", "cron_expression": "every day"}),
            "plan.schedule.cron_expression",
        ),
        (
            lambda r: r.update(schedule={"type": "interval", "interval_seconds": 0}),
            "plan.schedule.interval_seconds",
        ),
        (
            lambda r: r.update(schedule={"type": "manual", "timezone": "Mars/Olympus"}),
            "plan.schedule.timezone",
        ),
        (lambda r: r["steps"][0].update(agentRole=5), "plan.steps[0].agent_role"),
    ],
)
def test_invalid_plans_name_the_field(change: Any, field: str) -> None:
    raw = copy.deepcopy(RAW)
    change(raw)
    with pytest.raises(PlanInvalid) as caught:
        normalize_plan(parse_plan_body(raw), CTX)
    assert caught.value.extra["field"] == field and caught.value.code == "WORKFLOW_PLAN_INVALID"


def test_schedules_accept_the_string_misfire_form_and_catch_up() -> None:
    assert normalize_schedule(
        {"type": "interval", "interval_seconds": 60, "misfire_policy": "run_once"}
    ) == {
        "type": "interval",
        "timezone": "UTC",
        "misfire_policy": {"type": "run_once"},
        "interval_seconds": 60,
    }
    assert normalize_schedule(
        {
            "type": "interval",
            "intervalSeconds": {"seconds": 5},
            "misfire_policy": {"type": "catch_up", "max_runs": 3},
        }
    )["misfire_policy"] == {"type": "catch_up", "max_runs": 3}
    assert normalize_schedule(None) == {
        "type": "manual",
        "timezone": "UTC",
        "misfire_policy": {"type": "run_once"},
    }


def test_package_bundle_and_validation() -> None:
    package = compile_package(plan(), revision=2)
    assert package["plan_id"] == "wfplan-1" and package["plan_revision"] == 2
    assert package["lifecycle_state"] == "preview" and package["trigger"]["type"] == "cron"
    (routine,) = package["routine_graph"]
    assert [s["step_id"] for s in routine["steps"]] == ["collect_issues", "write_digest"]
    assert package["connector_bindings"] == [
        {
            "binding_id": "github",
            "binding_type": "mcp_server",
            "capability": "mcp.github",
            "status": "mapped",
        }
    ]
    assert package["credential_envelopes"] == [
        {"routine_id": "main", "entitled_connectors": ["github"]}
    ]
    report = validate_package(package)
    assert report["ready_for_apply"] and report["ready_for_activation"] and report["issues"] == []
    bundle = export_bundle(package)
    assert bundle["bundle_version"] == "1" and bundle["scope_snapshot"] == scope_snapshot(package)
    assert validate_bundle(bundle)["compatible"] is True


def test_unbound_integrations_warn_but_do_not_block() -> None:
    unbound = normalize_plan(parse_plan_body({**RAW, "requires_integrations": ["slack"]}), CTX)
    report = validate_package(compile_package(unbound, revision=1))
    assert report["ready_for_apply"] and not report["ready_for_activation"]
    assert [i["code"] for i in report["issues"]] == ["connector_unresolved"]


def test_tampered_or_live_bundles_are_incompatible() -> None:
    bundle = export_bundle(compile_package(plan(), revision=1))
    widened = copy.deepcopy(bundle)
    widened["plan"]["connector_bindings"].append(
        {
            "binding_id": "gmail",
            "binding_type": "mcp_server",
            "capability": "mcp.gmail",
            "status": "mapped",
        }
    )
    report = validate_bundle(widened)
    assert report["compatible"] is False and report["credential_isolation_preserved"] is False
    assert [i["code"] for i in report["issues"]] == ["scope_snapshot_mismatch"]

    live = copy.deepcopy(bundle)
    live["plan"]["lifecycle_state"] = "applied"
    live["scope_snapshot"] = scope_snapshot(live["plan"])
    assert [i["code"] for i in validate_bundle(live)["issues"]] == [
        "import_requires_preview_lifecycle"
    ]

    assert [
        i["code"]
        for i in validate_bundle({"bundle_version": "2", "plan": bundle["plan"]})["issues"]
    ] == ["unsupported_bundle_version", "missing_scope_snapshot"]
    cyclic = copy.deepcopy(bundle)
    cyclic["plan"]["routine_graph"][0]["steps"][0]["dependencies"] = ["write_digest"]
    cyclic["scope_snapshot"] = scope_snapshot(cyclic["plan"])
    assert [i["code"] for i in validate_bundle(cyclic)["issues"]] == ["step_cycle"]


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda p: p.update(routine_graph=5), "plan.routine_graph"),
        (lambda p: p["routine_graph"].append(5), "plan.routine_graph[1]"),
        (lambda p: p["routine_graph"][0].update(steps={"a": 1}), "plan.routine_graph[0].steps"),
        (
            lambda p: p["routine_graph"][0]["steps"][1].update(dependencies=[["collect_issues"]]),
            "plan.routine_graph[0].steps[1].dependencies[0]",
        ),
        (
            lambda p: p["routine_graph"][0]["steps"][1].update(input_refs="collect_issues"),
            "plan.routine_graph[0].steps[1].input_refs",
        ),
        (
            lambda p: p["routine_graph"][0].update(dependencies=[{"x": 1}]),
            "plan.routine_graph[0].dependencies[0]",
        ),
        (
            lambda p: p.update(connector_bindings=[{"binding_id": ["github"]}]),
            "plan.connector_bindings[0].binding_id",
        ),
        (
            lambda p: p.update(connector_intents=[{"capability": {}}]),
            "plan.connector_intents[0].capability",
        ),
        (lambda p: p.update(mission="digest"), "plan.mission"),
    ],
)
def test_bundles_with_fields_of_the_wrong_type_are_incompatible(change: Any, path: str) -> None:
    bundle = export_bundle(compile_package(plan(), revision=1))
    change(bundle["plan"])
    report = validate_bundle(bundle)
    assert report["compatible"] is False
    assert [(i["code"], i["path"]) for i in report["issues"]] == [("invalid_shape", path)]


def test_import_sanitizes_the_package_and_stages_the_schedule() -> None:
    bundle = export_bundle(compile_package(plan(), revision=3))
    preview = preview_import(bundle, workspace_root="/other/ws", creator_id="ana")
    package = preview.plan_package
    assert (
        package["plan_id"] == f"imported-{preview.source_bundle_digest[:12]}"
        and package["plan_revision"] == 1
    )
    assert package["owner"]["owner_id"] == "ana" and package["output_roots"]["plan"].startswith(
        "/other/ws/"
    )
    assert (
        package["connector_bindings"] == []
        and package["metadata"]["import"]["source_plan_id"] == "wfplan-1"
    )
    assert preview.staged_schedule["type"] == "cron"
    assert any("staged until apply" in line["message"] for line in preview.import_transform_log)

    imported = plan_from_import(preview)
    assert (
        imported.schedule["type"] == "manual"
        and imported.save_options["staged_schedule"]["type"] == "cron"
    )
    assert [s.step_id for s in imported.steps] == ["collect_issues", "write_digest"]
    assert (
        imported.steps[1].depends_on == ("collect_issues",) and imported.allowed_mcp_servers == ()
    )
    assert imported.workspace_root == "/other/ws" and imported.requires_integrations == ("github",)


def test_multi_routine_bundles_keep_routine_order() -> None:
    package = compile_package(plan(), revision=1)
    second = copy.deepcopy(package["routine_graph"][0])
    second.update(
        routine_id="publish",
        dependencies=[{"routine_id": "main"}],
        steps=[{"step_id": "post", "objective": "Post the digest", "dependencies": []}],
    )
    package["routine_graph"].append(second)
    bundle = export_bundle(package)
    assert validate_bundle(bundle)["compatible"]
    imported = plan_from_import(preview_import(bundle, workspace_root="/ws", creator_id="x"))
    assert [s.step_id for s in imported.steps] == [
        "main__collect_issues",
        "main__write_digest",
        "publish__post",
    ]
    assert imported.steps[2].depends_on == ("main__write_digest",)


def test_replay_reports_step_changes_and_blocks_moved_outputs() -> None:
    first = compile_package(plan(), revision=1)
    raw = copy.deepcopy(RAW)
    raw["steps"].append(
        {"id": "notify", "objective": "Post a link", "depends_on": ["write_digest"]}
    )
    second = compile_package(normalize_plan(parse_plan_body(raw), CTX), revision=2)
    report = compare_replay(first, second)
    assert report["compatible"] is True
    assert [d["path"] for d in report["diff_summary"]] == ["plan_revision", "steps.main::notify"]
    moved = {**second, "output_roots": {"plan": "/elsewhere"}}
    assert compare_replay(first, moved)["compatible"] is False


def test_overlap_detects_the_same_plan_and_similar_goals() -> None:
    applied = compile_package(plan(), revision=1)
    same = {**compile_package(plan(), revision=1), "plan_id": "wfplan-2"}
    assert analyze_overlap(same, [applied])["decision"] == "reuse"
    similar_ctx = PlanContext(
        plan_id="wfplan-3",
        prompt="Summarise the new GitHub issues every morning",
        workspace_root="/srv/ws",
    )
    other = compile_package(
        normalize_plan(
            parse_plan_body({"steps": [{"objective": "do it differently"}]}), similar_ctx
        ),
        revision=1,
    )
    result = analyze_overlap(other, [applied])
    assert result["match_layer"] == "semantic" and result["requires_user_confirmation"] is True
    assert analyze_overlap(applied, [applied])["decision"] == "new"  # a plan never overlaps itself


def test_plans_compile_to_automation_v2_specs() -> None:
    p = normalize_plan(
        parse_plan_body(RAW),
        PlanContext(
            plan_id="wfplan-1",
            prompt="x",
            workspace_root="/srv/ws",
            allowed_mcp_servers=("github",),
            operator_preferences={
                "model_provider": "openai",
                "model_id": "m-1",
                "max_parallel_agents": 3,
            },
        ),
    )
    spec = plan_to_automation(
        p,
        revision=1,
        package={"plan_id": "wfplan-1"},
        schedule=p.schedule,
        status="active",
        creator_id="ana",
    )
    assert [a["agent_id"] for a in spec["agents"]] == ["agent_researcher", "agent_writer"]
    assert spec["agents"][0]["tool_policy"]["allowlist"] == ["*", "mcp.github.*"]
    assert spec["agents"][0]["mcp_policy"] == {"allowed_servers": ["github"]}
    assert spec["agents"][0]["model_policy"] == {
        "default_model": {"provider_id": "openai", "model_id": "m-1"}
    }
    node = spec["flow"]["nodes"][1]
    assert node["agent_id"] == "agent_writer" and node["depends_on"] == ["collect_issues"]
    assert node["input_refs"] == [{"from_step_id": "collect_issues", "alias": "collect_issues"}]
    assert (
        spec["execution"] == {"max_parallel_agents": 3}
        and spec["metadata"]["workflow_plan_id"] == "wfplan-1"
    )
    assert spec["status"] == "active" and spec["creator_id"] == "ana"
