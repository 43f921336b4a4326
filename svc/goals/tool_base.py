"""What every goal tool shares: the caller it acts as, idempotent runs, the result shape.

Each tool holds the goal service it was registered with (the goals component builds
them), and runs in a tenant (the local one unless the tool context carries
``metadata["tenant_context"]``) as a principal: the operator when a human calls the
tool directly (``POST /tool/execute``, the CLI), the agent when a model calls it inside
a session run.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import SvcError
from ..tools import Tool, ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .errors import GoalForbidden
from .ids import digest

# Registration needs only names, descriptions and schemas: what the tools parse and
# check (specs, tenants and principals) is imported on first call (docs/architecture.md,
# "Start-up budget").

if TYPE_CHECKING:
    from .service import GoalService
    from .tenancy import Caller

IN_FLIGHT_MS = 30_000

KEY_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": 256,
    "description": "Makes retries safe.",
}


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def caller_of(ctx: ToolContext) -> Caller:
    """The tenant and principal a tool call acts as."""
    from .tenancy import LOCAL_OPERATOR, Caller, Principal, TenantContext

    tenant = TenantContext.from_wire(ctx.metadata.get("tenant_context"))
    principal = ctx.metadata.get("principal")
    if isinstance(principal, Principal):
        return Caller(tenant, principal)
    if ctx.source in ("session", "automation"):
        agent = ctx.agent_id or (f"session:{ctx.session_id}" if ctx.session_id else "agent")
        return Caller(tenant, Principal(agent, kind="agent"))
    if not tenant.is_local:
        raise GoalForbidden("tools in a non-local tenant require a verified tenant principal")
    return Caller(tenant, LOCAL_OPERATOR)


def _result(value: Mapping[str, Any]) -> ToolResult:
    return ToolResult(json.dumps(value, indent=2, ensure_ascii=False, default=str), dict(value))


async def once(
    service: GoalService,
    caller: Caller,
    operation: str,
    args: Mapping[str, Any],
    run: Callable[[str], Awaitable[dict[str, Any]]],
) -> dict[str, Any]:
    """Run ``run(request_digest)`` once per (tenant, tool, idempotency key).

    A retry with the same arguments returns the stored answer; the same key with other
    arguments is refused, and so is one whose first request is still in flight.
    """
    ledger = service.rt.ledger
    key = str(args["idempotency_key"]).strip()
    request_digest = digest(
        {"tenant": caller.tenant.to_wire(), "args": dict(args), "actor": caller.principal.actor_id}
    )
    now = service.rt.now()
    prior = await ledger.reserve_request(caller.tenant, operation, key, request_digest, now)
    if prior is not None:
        if prior.request_digest != request_digest:
            raise ToolFailed(
                f"idempotency key is already bound to a different {operation} request",
                code="goal_state_conflict",
            )
        if prior.completed_at_ms is not None:
            response: dict[str, Any] = prior.response
            return response
        if now - prior.created_at_ms < IN_FLIGHT_MS:
            raise ToolFailed(
                f"a {operation} request with this idempotency key is still in flight",
                code="goal_state_conflict",
            )
    try:
        response = await run(request_digest)
    except BaseException:
        # Whatever ended the request (an error, a cancellation), a retry must be able
        # to run it: the reservation goes.
        await ledger.release_request(caller.tenant, operation, key)
        raise
    await ledger.complete_request(caller.tenant, operation, key, response, service.rt.now())
    return response


class GoalTool(Tool):
    """A tool over ``engine.goals``; subclasses implement :meth:`run`."""

    capabilities = ToolCapabilities(effects=("goals",))

    def __init__(self, service: GoalService) -> None:
        self._service = service

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            return _result(await self.run(self._service, caller_of(ctx), args))
        except SvcError as exc:
            raise ToolFailed(
                exc.message,
                code=exc.code,
                **{k: v for k, v in exc.extra.items() if k in ("field", "check", "detail")},
            ) from None

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        raise NotImplementedError


__all__ = ["KEY_SCHEMA", "GoalTool", "caller_of", "object_schema", "once"]
