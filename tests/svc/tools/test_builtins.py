"""The built-in tool set: names, registration, and well-formed schemas."""

from __future__ import annotations

from typing import Any

import pytest

from svc.tools import ToolRegistry, builtin_tools, register_builtins
from svc.tools.permissions import DEFAULT_RULES, evaluate

EXPECTED = [
    "bash", "batch", "edit", "glob", "grep", "question", "read", "todo_write", "webfetch",
    "webfetch_html", "websearch", "write",
]  # fmt: skip


def test_register_builtins() -> None:
    registry = ToolRegistry()
    names = register_builtins(registry)
    assert sorted(names) == EXPECTED
    assert registry.names() == EXPECTED
    with pytest.raises(ValueError, match="already registered"):
        register_builtins(registry)
    register_builtins(registry, replace=True)
    assert len(registry) == len(EXPECTED)


def _check_schema(schema: Any, where: str) -> None:
    assert isinstance(schema, dict), where
    if schema.get("type") == "object" or "properties" in schema:
        for name, sub in (schema.get("properties") or {}).items():
            _check_schema(sub, f"{where}.{name}")
        for name in schema.get("required") or ():
            assert name in schema["properties"], f"{where}: required {name} is not a property"
    if "items" in schema:
        _check_schema(schema["items"], f"{where}[]")


@pytest.mark.parametrize("tool", builtin_tools(), ids=lambda t: t.name)
def test_every_tool_has_a_description_and_an_object_schema(tool: Any) -> None:
    entry = tool.schema()
    assert entry["name"] == tool.name
    assert len(entry["description"]) > 20
    assert entry["input_schema"]["type"] == "object"
    assert entry["input_schema"].get("additionalProperties") is False
    _check_schema(entry["input_schema"], tool.name)


def test_default_permissions_of_the_builtins() -> None:
    actions = {
        t.name: evaluate(DEFAULT_RULES, t.permission, session_id=None) for t in builtin_tools()
    }
    assert actions == {
        "read": "allow", "write": "ask", "edit": "ask", "glob": "allow", "grep": "allow",
        "bash": "ask", "webfetch": "allow", "webfetch_html": "allow", "websearch": "allow",
        "todo_write": "allow", "question": "allow", "batch": "allow",
    }  # fmt: skip
