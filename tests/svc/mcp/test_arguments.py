"""Argument repair before tools/call."""

from __future__ import annotations

from typing import Any

from svc.mcp.arguments import normalize_key, repair_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "list_id": {"type": "string"},
        "task_title": {"type": "string"},
        "priority": {"type": "integer"},
    },
    "required": ["list_id", "task_title"],
}
STRICT = {**SCHEMA, "additionalProperties": False}


def test_keys_normalize_without_case_or_separators() -> None:
    assert {normalize_key(k) for k in ("task_title", "taskTitle", "Task-Title", "TASK TITLE")} == {
        "tasktitle"
    }


def test_camel_case_keys_are_copied_to_the_schema_names() -> None:
    assert repair_arguments(SCHEMA, {"listId": "L1", "taskTitle": "Fish", "priority": 2}) == {
        "listId": "L1",
        "taskTitle": "Fish",
        "list_id": "L1",
        "task_title": "Fish",
        "priority": 2,
    }


def test_required_aliases_are_recovered() -> None:
    # The reference example: `name` stands for a required title, `list` for list_id.
    assert repair_arguments(SCHEMA, {"listId": "123", "name": "Prep fish"}) == {
        "listId": "123",
        "name": "Prep fish",
        "list_id": "123",
        "task_title": "Prep fish",
    }
    assert repair_arguments(SCHEMA, {"list": "9", "title": "T"})["list_id"] == "9"


def test_drifted_keys_are_dropped_when_additional_properties_are_forbidden() -> None:
    assert repair_arguments(STRICT, {"listId": "L1", "name": "Fish", "Priority": 3}) == {
        "list_id": "L1",
        "task_title": "Fish",
        "priority": 3,
    }


def test_unrelated_extra_keys_stay_for_the_server_to_judge() -> None:
    assert (
        repair_arguments(STRICT, {"list_id": "L", "task_title": "T", "colour": "red"})["colour"]
        == "red"
    )


def test_present_schema_keys_are_never_overwritten() -> None:
    assert (
        repair_arguments(SCHEMA, {"list_id": "right", "listId": "wrong", "task_title": "T"})[
            "list_id"
        ]
        == "right"
    )


def test_engine_internal_keys_never_leave_the_engine() -> None:
    assert repair_arguments(SCHEMA, {"list_id": "L", "task_title": "T", "__session_id": "s"}) == {
        "list_id": "L",
        "task_title": "T",
    }
    assert repair_arguments(None, {"__workspace_root": "/x", "q": 1}) == {"q": 1}


def test_nested_objects_and_arrays_of_objects_are_repaired() -> None:
    schema = {
        "type": "object",
        "properties": {
            "owner": {
                "type": "object",
                "properties": {"user_id": {"type": "string"}},
                "additionalProperties": False,
            },
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku_code": {"type": "string"}}},
            },
        },
    }
    repaired = repair_arguments(
        schema, {"owner": {"userId": "u1"}, "items": [{"skuCode": "A"}, {"sku_code": "B"}]}
    )
    assert repaired["owner"] == {"user_id": "u1"}
    assert repaired["items"] == [{"skuCode": "A", "sku_code": "A"}, {"sku_code": "B"}]


def test_schemas_without_properties_leave_arguments_alone() -> None:
    assert repair_arguments({"type": "object"}, {"anyThing": 1}) == {"anyThing": 1}
    assert repair_arguments({"type": "object", "properties": {}}, {"a": 1}) == {"a": 1}
