"""The tool registry and direct tool execution."""

from ..records.system import TOOL_IDS, TOOL_RESULT, TOOLS
from ..registry import op

OPERATIONS = {
    "tool_list": op("Every tool with its schema", returns=TOOLS),
    "tool_ids": op("Every tool's id", returns=TOOL_IDS),
    "tool_execute": op(
        "Execute one tool through the dispatcher (scope, approval, schema)",
        body="svc.http.routes.tools:ExecuteBody",
        returns=TOOL_RESULT,
    ),
}
