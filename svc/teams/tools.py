"""The ``spawn_agent`` tool: an agent spawns a child agent through the same gate as HTTP.

Called from a session (``/tool spawn_agent {...}`` in a prompt, or by the
model), it spawns with source ``tool_call``; when the calling session is an
agent instance's, that instance is the default parent and its mission the
default mission, so spawn edges and the parent's remaining budget apply. The
result's metadata is exactly the HTTP spawn body (success or failure); its
text is a one-line summary for the model. Direct CLI tool mode has no engine
runtime to host an instance, so the tool refuses there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..convert import aliases, structure
from ..errors import ValidationFailed
from ..tools import Tool, ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .schema import ROLES, BudgetSpec, Role

if TYPE_CHECKING:
    from .service import TeamsService

_BUDGET_SCHEMA = {
    "type": "object",
    "properties": {
        "max_tokens": {"type": "integer", "minimum": 0},
        "max_steps": {"type": "integer", "minimum": 0},
        "max_tool_calls": {"type": "integer", "minimum": 0},
        "max_duration_ms": {"type": "integer", "minimum": 0},
        "max_cost_usd": {"type": "number", "minimum": 0},
    },
}


@attrs.frozen
class SpawnArgs:
    role: Role
    justification: str = ""
    mission_id: str | None = aliases("missionID", "missionId", default=None)
    parent_instance_id: str | None = aliases("parentInstanceID", "parentInstanceId", default=None)
    template_id: str | None = aliases("templateID", "templateId", default=None)
    source: str | None = None
    budget_override: BudgetSpec | None = aliases("budgetOverride", default=None)
    prompt: str | None = None


class SpawnAgentTool(Tool):
    name = "spawn_agent"
    description = (
        "Spawn a child agent instance under the workspace's agent-team spawn policy. Give the "
        "child's `role`, a `justification`, optionally a `templateID`, a `missionID`, a "
        "`budgetOverride` and a `prompt` (its task; without one the instance waits to be "
        "prompted). Returns the instance and session ids, or the policy's reason for refusing."
    )
    input_schema = {
        "type": "object",
        "properties": {
            "missionID": {"type": "string"},
            "parentInstanceID": {"type": "string"},
            "templateID": {"type": "string"},
            "role": {"type": "string", "enum": list(ROLES)},
            "source": {"type": "string", "enum": ["tool_call"]},
            "justification": {"type": "string"},
            "budgetOverride": _BUDGET_SCHEMA,
            "prompt": {
                "type": "string",
                "description": "The child's task; it starts working on it at once.",
            },
        },
        "required": ["role", "justification"],
    }
    capabilities = ToolCapabilities(effects=("agent.spawn",))

    def __init__(self, service: TeamsService) -> None:
        self._service = service

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        if ctx.source == "cli":
            raise ToolFailed(
                "spawn_agent must be executed through the engine runtime.",
                code="SPAWN_HOOK_UNAVAILABLE",
                ok=False,
            )
        try:
            parsed = structure(SpawnArgs, dict(args), what="spawn_agent arguments")
        except ValidationFailed as exc:
            metadata = {
                "ok": False,
                "code": "SPAWN_INVALID_ARGS",
                "error": exc.message,
                "field": exc.extra.get("field"),
            }
            return ToolResult(f"invalid spawn_agent arguments: {exc.message}", metadata)
        # Imported on first use: registration needs only the schema (docs/architecture.md,
        # "Start-up budget").
        from .records import SpawnRequest

        caller = (
            await self._service.repo.instance_by_session(ctx.session_id) if ctx.session_id else None
        )
        request = SpawnRequest(
            role=parsed.role,
            source="tool_call",
            justification=parsed.justification,
            mission_id=parsed.mission_id
            or (caller.mission_id if caller and not parsed.parent_instance_id else None),
            parent_instance_id=parsed.parent_instance_id or (caller.id if caller else None),
            template_id=parsed.template_id,
            budget_override=parsed.budget_override.limits() if parsed.budget_override else None,
            prompt=parsed.prompt,
            calling_session_id=ctx.session_id,
            calling_message_id=ctx.message_id,
        )
        result = await self._service.spawn(request)
        body = result.body
        if result.ok:
            template = result.instance.template_id if result.instance else "agent"
            text = (
                f"spawned {template} as instance {body['instanceID']} (session {body['sessionID']})"
            )
        else:
            text = str(body.get("error") or body.get("code"))
        return ToolResult(text, dict(body))


__all__ = ["SpawnAgentTool", "SpawnArgs"]
