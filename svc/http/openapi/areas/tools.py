"""The tool registry and direct tool execution."""

from ..registry import ARRAY, OBJECT, op

OPERATIONS = {
    "tool_list": op("Every tool with its schema", returns=ARRAY),
    "tool_ids": op("Every tool's id", returns=ARRAY),
    "tool_execute": op(
        "Execute one tool through the dispatcher (scope, approval, schema)",
        body="svc.http.routes.tools:ExecuteBody",
        returns=OBJECT,
    ),
}
