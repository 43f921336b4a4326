"""validate_args: the JSON-Schema subset tool inputs use, and the paths its errors name."""

from __future__ import annotations

from typing import Any

import pytest

from svc.errors import ValidationFailed
from svc.tools import validate_args

TODO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": ["string", "integer"]},
                    "status": {"type": "string", "enum": ["pending", "completed"]},
                },
                "required": ["status"],
                "additionalProperties": False,
            },
        },
        "limit": {"type": "integer", "minimum": 1, "maximum": 20},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "name": {"type": "string", "minLength": 1},
        "nested": {
            "type": "object",
            "properties": {
                "deep": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}},
                    "required": ["x"],
                }
            },
        },
        "calls": {"type": "array", "maxItems": 2, "minItems": 1},
    },
    "required": ["todos"],
    "additionalProperties": False,
}


def failure(args: Any, schema: dict[str, Any] = TODO_SCHEMA) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as info:
        validate_args(schema, args)
    return info.value


def test_valid_args_come_back_as_a_plain_copy() -> None:
    args = {"todos": [{"id": 1, "status": "pending"}], "limit": 3, "ratio": 0.5, "flag": True}
    result = validate_args(TODO_SCHEMA, args)
    assert result == args
    result["todos"][0]["status"] = "completed"
    assert args["todos"][0]["status"] == "pending"  # the caller's data is untouched


def test_defaults_are_not_injected() -> None:
    schema = {"type": "object", "properties": {"limit": {"type": "integer", "default": 5}}}
    assert validate_args(schema, {}) == {}


@pytest.mark.parametrize("args", [None, [], "x", 3])
def test_non_object_args_name_the_args_field(args: Any) -> None:
    err = failure(args)
    assert err.extra["field"] == "args"
    assert err.code == "VALIDATION_FAILED" and err.status == 400
    assert "must be a JSON object" in err.message


def test_missing_required_property() -> None:
    err = failure({})
    assert err.extra["field"] == "args.todos"
    assert err.message == "args.todos is required"


def test_enum_error_names_the_nested_path() -> None:
    err = failure({"todos": [{"status": "pending"}, {"status": "done"}]})
    assert err.extra["field"] == "args.todos[1].status"
    assert err.message == "args.todos[1].status must be one of pending, completed"


def test_required_inside_array_items() -> None:
    err = failure({"todos": [{"id": "a"}]})
    assert err.extra["field"] == "args.todos[0].status"


def test_additional_properties_false_at_top_and_nested() -> None:
    assert failure({"todos": [], "extra": 1}).extra["field"] == "args.extra"
    err = failure({"todos": [{"status": "pending", "colour": "red"}]})
    assert err.extra["field"] == "args.todos[0].colour"
    assert "not an allowed property" in err.message


def test_type_lists() -> None:
    validate_args(
        TODO_SCHEMA, {"todos": [{"id": "x", "status": "pending"}, {"id": 7, "status": "pending"}]}
    )
    err = failure({"todos": [{"id": 1.5, "status": "pending"}]})
    assert err.message == "args.todos[0].id must be a string or an integer, not number"


def test_integer_versus_number() -> None:
    assert (
        validate_args(TODO_SCHEMA, {"todos": [], "limit": 4.0})["limit"] == 4.0
    )  # 4.0 is a JSON integer
    err = failure({"todos": [], "limit": 2.5})
    assert err.extra["field"] == "args.limit"
    assert err.message == "args.limit must be an integer, not number"
    validate_args(TODO_SCHEMA, {"todos": [], "ratio": 3})  # an integer is a number


def test_booleans_are_not_numbers_and_numbers_are_not_booleans() -> None:
    assert (
        failure({"todos": [], "limit": True}).message
        == "args.limit must be an integer, not boolean"
    )
    assert failure({"todos": [], "ratio": False}).extra["field"] == "args.ratio"
    assert failure({"todos": [], "flag": 1}).message == "args.flag must be a boolean, not integer"


def test_enum_does_not_confuse_true_with_one() -> None:
    schema = {"type": "object", "properties": {"v": {"enum": [1, "a"]}}}
    validate_args(schema, {"v": 1})
    assert failure({"v": True}, schema).extra["field"] == "args.v"


def test_minimum_and_maximum() -> None:
    assert failure({"todos": [], "limit": 0}).message == "args.limit must be >= 1"
    assert failure({"todos": [], "limit": 21}).message == "args.limit must be <= 20"
    validate_args(TODO_SCHEMA, {"todos": [], "limit": 20})


def test_string_and_array_lengths() -> None:
    assert failure({"todos": [], "name": ""}).message == "args.name must not be empty"
    assert failure({"todos": [], "calls": []}).message == "args.calls needs at least 1 items"
    assert failure({"todos": [], "calls": [1, 2, 3]}).message == "args.calls allows at most 2 items"


def test_nested_objects() -> None:
    err = failure({"todos": [], "nested": {"deep": {}}})
    assert err.extra["field"] == "args.nested.deep.x"
    err = failure({"todos": [], "nested": {"deep": {"x": "1"}}})
    assert err.message == "args.nested.deep.x must be an integer, not string"


def test_wrong_container_types() -> None:
    assert failure({"todos": {}}).message == "args.todos must be an array, not object"
    assert failure({"todos": ["x"]}).message == "args.todos[0] must be an object, not string"


def test_schema_without_type_is_treated_as_object() -> None:
    schema = {"properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert validate_args(schema, {"a": "x"}) == {"a": "x"}
    assert failure([], schema).extra["field"] == "args"


def test_unknown_keywords_are_ignored() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"anyOf": [{"type": "string"}], "description": "d"}},
    }
    assert validate_args(schema, {"a": 3}) == {"a": 3}
