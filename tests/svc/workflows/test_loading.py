"""Loading workflow and hook definitions from YAML files."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.workflows.loading import LoadSource, load_registry


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def workspace_source(root: Path) -> LoadSource:
    return LoadSource(root=root, kind="workspace")


def test_workflow_with_steps_and_embedded_hooks_loads(tmp_path: Path) -> None:
    path = write(
        tmp_path / "workflows" / "demo.yaml",
        """
workflow:
  id: build_feature
  name: Build Feature
  description: Plan then verify
  steps:
    - planner
    - id: verify
      action: tool:read
      with:
        path: README.md
  hooks:
    task_created:
      - kanban.update
      - action: event:team.notified
        with: {channel: engineering}
""",
    )
    result = load_registry([workspace_source(tmp_path)])
    assert result.messages == ()
    spec = result.registry.workflows["build_feature"]
    assert spec.name == "Build Feature" and spec.description == "Plan then verify"
    assert [(s.step_id, s.action, s.with_) for s in spec.steps] == [
        ("step_1", "planner", None),
        ("verify", "tool:read", {"path": "README.md"}),
    ]
    assert (
        spec.source is not None
        and spec.source.kind == "workspace"
        and spec.source.path == str(path)
    )
    (hook,) = spec.hooks
    assert (
        hook.binding_id == "build_feature.task_created"
        and hook.event == "task_created"
        and hook.enabled
    )
    assert [a.to_wire() for a in hook.actions] == [
        {"action": "kanban.update"},
        {"action": "event:team.notified", "with": {"channel": "engineering"}},
    ]
    assert result.registry.hooks == (hook,)


def test_flat_and_list_hook_forms_are_equivalent(tmp_path: Path) -> None:
    write(
        tmp_path / "workflows" / "flat.yaml",
        """
workflow:
  id: flat
  steps: [planner]
  hooks:
    task_created: [kanban.update]
""",
    )
    write(
        tmp_path / "workflows" / "list.yaml",
        """
workflow:
  id: listed
  steps: [planner]
  hooks:
    - event: task_created
      actions: [kanban.update]
""",
    )
    registry = load_registry([workspace_source(tmp_path)]).registry
    flat, listed = registry.hooks_for("flat")[0], registry.hooks_for("listed")[0]
    assert (flat.event, flat.actions) == (listed.event, listed.actions)
    assert listed.binding_id == "listed.task_created"


def test_hook_files_and_nested_directories_are_found(tmp_path: Path) -> None:
    write(
        tmp_path / "workflows" / "nested" / "deep" / "demo.yaml",
        "workflow:\n  id: nested_demo\n  steps: [planner]\n",
    )
    write(
        tmp_path / "hooks" / "team" / "events.yaml",
        """
hooks:
  - workflow: nested_demo
    id: verify-on-create
    event: task_created
    enabled: false
    actions:
      - verifier.run
""",
    )
    registry = load_registry([workspace_source(tmp_path)]).registry
    assert "nested_demo" in registry.workflows
    hook = registry.hook("verify-on-create")
    assert hook is not None and hook.workflow_id == "nested_demo" and hook.enabled is False
    assert registry.workflows["nested_demo"].hooks == (hook,)


def test_yaml_syntax_error_names_file_and_line_and_other_files_still_load(tmp_path: Path) -> None:
    broken = write(
        tmp_path / "workflows" / "broken.yaml", "workflow:\n  id: broken\n  steps: [planner\n"
    )
    write(tmp_path / "workflows" / "good.yaml", "workflow:\n  id: good\n  steps: [planner]\n")
    result = load_registry([workspace_source(tmp_path)])
    assert list(result.registry.workflows) == ["good"]
    (message,) = result.messages
    assert message.severity == "error" and message.source_path == str(broken)
    assert (
        message.line == 4 and "broken.yaml" in message.message and "invalid YAML" in message.message
    )


def test_malformed_definitions_report_the_line_of_the_offending_part(tmp_path: Path) -> None:
    write(
        tmp_path / "workflows" / "a.yaml",
        "workflow:\n  id: a\n  steps:\n    - planner\n    - with: {x: 1}\n",
    )
    write(tmp_path / "workflows" / "b.yaml", "hooks:\n  x: [y]\n")
    write(tmp_path / "workflows" / "c.yaml", "workflow:\n  id: c\n  id: d\n")
    write(tmp_path / "workflows" / "d.yaml", "workflow:\n  id: d\n  stepz: []\n")
    by_file = {
        Path(m.source_path or "").name: m
        for m in load_registry([workspace_source(tmp_path)]).messages
    }
    assert by_file["a.yaml"].line == 5 and by_file["a.yaml"].field == "workflow.steps[1].action"
    assert "missing `workflow` key" in by_file["b.yaml"].message
    assert "duplicate key `id`" in by_file["c.yaml"].message and by_file["c.yaml"].line == 3
    assert by_file["d.yaml"].field == "workflow.stepz"


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ("workflow:\n  id: a\n  name: A\n  enabled: yes\n", 4, "workflow.enabled"),
        ("workflow:\n  id: a\n  steps:\n    - planner\n    - 5\n", 5, "workflow.steps[1]"),
        (
            "workflow:\n  id: a\n  steps:\n    - id: s\n      with: {}\n      action: [x]\n",
            6,
            "workflow.steps[0].action",
        ),
        ("workflow:\n  id: a\n  description: [x]\n", 3, "workflow.description"),
        (
            "workflow:\n  id: a\n  hooks:\n    started: [x]\n    finished: 5\n",
            5,
            "workflow.hooks.finished",
        ),
        (
            "workflow:\n  id: a\n  hooks:\n    started:\n      - x\n      - 7\n",
            6,
            "workflow.hooks.started[1]",
        ),
        ("workflow:\n  id: a\n\n  stepz: []\n", 4, "workflow.stepz"),
        ("\nworkflow: 5\n", 2, "workflow"),
    ],
)
def test_errors_point_at_the_line_of_the_offending_key_or_item(
    tmp_path: Path, text: str, line: int, field: str
) -> None:
    write(tmp_path / "workflows" / "w.yaml", text)
    (message,) = load_registry([workspace_source(tmp_path)]).messages
    assert (message.line, message.field) == (line, field), message


def test_workspace_definition_overrides_builtin_by_id(tmp_path: Path) -> None:
    builtin = tmp_path / "state" / "builtin_workflows"
    workspace = tmp_path / "ws" / ".svc"
    write(
        builtin / "standup.yaml",
        """
workflow:
  id: standup
  name: Built-in standup
  steps: [planner]
  hooks:
    session_created: [kanban.update]
""",
    )
    write(
        workspace / "workflows" / "standup.yaml",
        "workflow:\n  id: standup\n  name: Team standup\n  steps: [planner]\n",
    )
    result = load_registry(
        [LoadSource(builtin, "built_in", top_level_files=True), LoadSource(workspace, "workspace")]
    )
    spec = result.registry.workflows["standup"]
    assert (
        spec.name == "Team standup" and spec.source is not None and spec.source.kind == "workspace"
    )
    # The built-in definition's own hook went with it.
    assert result.registry.hooks == ()
    assert [m.severity for m in result.messages] == ["info"] and "overrides" in result.messages[
        0
    ].message


def test_workflow_id_defaults_to_file_name_and_maps_to_an_automation(tmp_path: Path) -> None:
    write(tmp_path / "workflows" / "nightly-report.yml", "workflow:\n  automation_id: auto-1\n")
    spec = load_registry([workspace_source(tmp_path)]).registry.workflows["nightly-report"]
    assert spec.name == "nightly-report" and spec.automation_id == "auto-1" and spec.steps == ()


def test_empty_and_non_mapping_files_are_errors(tmp_path: Path) -> None:
    write(tmp_path / "workflows" / "empty.yaml", "")
    write(tmp_path / "workflows" / "list.yaml", "- a\n- b\n")
    messages = load_registry([workspace_source(tmp_path)]).messages
    assert sorted(m.message.split(": ", 1)[1] for m in messages) == [
        "the document must be a mapping with a `workflow` or `hooks` key",
        "the file is empty",
    ]


def test_yes_no_on_off_stay_strings(tmp_path: Path) -> None:
    write(
        tmp_path / "workflows" / "x.yaml",
        "workflow:\n  id: off\n  enabled: true\n  steps:\n    - id: on\n"
        "      action: event:yes\n      with: {flag: no, real: false}\n",
    )
    spec = load_registry([workspace_source(tmp_path)]).registry.workflows["off"]
    assert spec.enabled is True
    assert spec.steps[0].step_id == "on" and spec.steps[0].with_ == {"flag": "no", "real": False}
