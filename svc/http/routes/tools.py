"""The tool registry over HTTP: list and execute."""

from __future__ import annotations

from typing import Any

import attrs
from quart import Blueprint

from ...convert import aliases, structure
from ...errors import ValidationFailed
from ...tools import ToolContext
from ..request import engine, json_body

bp = Blueprint("tools", __name__)


@attrs.frozen
class ExecuteBody:
    tool: str
    args: dict[str, Any] = attrs.field(factory=dict)
    scope_allowlist: list[str] | None = aliases("scopeAllowlist", default=None)


@bp.get("/tool/ids")
async def tool_ids() -> Any:
    return engine().tools.names()


@bp.get("/tool")
async def tool_list() -> Any:
    return [tool.schema() for tool in engine().tools.tools()]


@bp.post("/tool/execute")
async def tool_execute() -> Any:
    body = structure(ExecuteBody, await json_body())
    if not body.tool.strip():
        raise ValidationFailed("`tool` must not be empty", field="tool")
    eng = engine()
    view = eng.tools.view(body.scope_allowlist) if body.scope_allowlist is not None else None
    ctx = ToolContext(
        workspace=eng.workspace,
        source="http",
        http=eng.http,
        settings=eng.settings,
        interactive=False,
    )
    outcome = await eng.dispatcher.dispatch(body.tool.strip(), body.args, ctx, view=view)
    if outcome.ok:
        return {"output": outcome.output or "", "metadata": dict(outcome.metadata)}
    status = {
        "TOOL_NOT_FOUND": 404,
        "TOOL_DISPATCH_DENIED": 403,
        "TOOL_NOT_ALLOWED": 403,
        "VALIDATION_FAILED": 400,
    }.get(outcome.code or "", 400 if outcome.state == "failed" else 403)
    error_body: dict[str, Any] = {
        "error": outcome.error,
        "code": outcome.code or "TOOL_EXECUTION_FAILED",
        "retryable": False,
        "tool": outcome.tool,
        "outcome": outcome.state,
    }
    if outcome.state == "denied":
        error_body["reason"] = outcome.error
    if outcome.metadata.get("field"):
        error_body["field"] = f"args.{outcome.metadata['field']}".replace("args.args.", "args.")
    return error_body, status
