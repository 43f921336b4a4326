"""Agent tools for orchestrations and goals.

``orchestration_create_draft``, ``orchestration_validate``, ``orchestration_publish``,
``goal_start``, ``goal_get``, ``goal_cancel``, ``handoff_emit``, ``handoff_approve``,
``wait_inspect`` and ``wait_resolve``. Each runs in a tenant (the local one unless the
tool context carries ``metadata["tenant_context"]``) as a principal: the operator when a
human calls the tool directly (``POST /tool/execute``, the CLI), the agent when a model
calls it inside a session run. Owner checks apply as for HTTP; deciding handoffs and
resolving waits need human authority, so agents are refused (fail closed).

Mutating tools that create something take an ``idempotency_key``: a retry with the same
arguments returns the stored answer; the same key with other arguments is refused.
The result's output is pretty-printed JSON and its metadata the same JSON.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import SvcError
from ..tools import Tool, ToolCapabilities, ToolContext, ToolFailed, ToolResult
from .errors import GoalForbidden, GoalTerminal
from .ids import digest, draft_id_for
from .service import StartGoal, TransitionBody
from .versions import spec_response

# Registration needs only names, descriptions and schemas: what the tools parse and
# check (specs, tenants and principals) is imported on first call (docs/architecture.md,
# "Start-up budget").

if TYPE_CHECKING:
    from .service import GoalService
    from .tenancy import Caller

IN_FLIGHT_MS = 30_000

_KEY = {"type": "string", "minLength": 1, "maxLength": 256, "description": "Makes retries safe."}
_ARTIFACT = {
    "type": "object",
    "description": "{artifact_type, value | content_path + content_digest}",
    "properties": {
        "artifact_type": {"type": "string"},
        "value": {},
        "content_path": {"type": "string"},
        "content_digest": {"type": "string"},
    },
    "required": ["artifact_type"],
}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
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


def _service(ctx: ToolContext) -> GoalService:
    goals = getattr(ctx.engine, "goals", None)
    if goals is None:
        raise ToolFailed("orchestrations and goals need a running engine")
    return goals  # type: ignore[no-any-return]


def _result(value: Mapping[str, Any]) -> ToolResult:
    return ToolResult(json.dumps(value, indent=2, ensure_ascii=False, default=str), dict(value))


async def _once(
    service: GoalService,
    caller: Caller,
    operation: str,
    args: Mapping[str, Any],
    run: Callable[[str], Awaitable[dict[str, Any]]],
) -> dict[str, Any]:
    """Run ``run(request_digest)`` once per (tenant, tool, idempotency key)."""
    key = str(args["idempotency_key"]).strip()
    request_digest = digest(
        {"tenant": caller.tenant.to_wire(), "args": dict(args), "actor": caller.principal.actor_id}
    )
    now = service.rt.now()
    prior = await service.repo.reserve_request(caller.tenant, operation, key, request_digest, now)
    if prior is not None:
        if prior.request_digest != request_digest:
            raise ToolFailed(
                f"idempotency key is already bound to a different {operation} request",
                code="goal_state_conflict",
            )
        if prior.completed_at_ms is not None:
            return prior.response  # type: ignore[no-any-return]
        if now - prior.created_at_ms < IN_FLIGHT_MS:
            raise ToolFailed(
                f"a {operation} request with this idempotency key is still in flight",
                code="goal_state_conflict",
            )
    try:
        response = await run(request_digest)
    except BaseException:
        await service.repo.release_request(caller.tenant, operation, key)
        raise
    await service.repo.complete_request(caller.tenant, operation, key, response, service.rt.now())
    return response


class _GoalTool(Tool):
    capabilities = ToolCapabilities(effects=("goals",))

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        service = _service(ctx)
        try:
            return _result(await self.run(service, caller_of(ctx), args))
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


class OrchestrationCreateDraft(_GoalTool):
    name = "orchestration_create_draft"
    description = (
        "Create an orchestration draft (version 0): workflow, wait and terminal nodes joined by edges "
        "with transition keys and artifact contracts. Validate and publish it before goals can start."
    )
    input_schema = _schema(
        {
            "orchestration_id": {"type": "string"},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "root_node_id": {"type": "string"},
            "nodes": {"type": "array", "items": {"type": "object"}},
            "edges": {"type": "array", "items": {"type": "object"}},
            "goal_policy": {"type": "object"},
            "metadata": {},
            "idempotency_key": _KEY,
        },
        ["name", "root_node_id", "nodes", "edges", "idempotency_key"],
    )
    capabilities = ToolCapabilities(effects=("goals",))

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        from .orchestration import parse_spec

        async def create(request_digest: str) -> dict[str, Any]:
            body = parse_spec({k: v for k, v in args.items() if k != "idempotency_key"})
            orchestration_id = body.orchestration_id or draft_id_for(
                f"{caller.tenant.scope}:{self.name}", str(args["idempotency_key"])
            )
            spec = await service.orchestrations.create_draft(
                caller,
                body,
                orchestration_id=orchestration_id,
                extra_metadata={
                    "create_idempotency_key": args["idempotency_key"],
                    "create_request_digest": request_digest,
                },
            )
            return spec_response(spec)

        return await _once(service, caller, self.name, args, create)


class OrchestrationValidate(_GoalTool):
    name = "orchestration_validate"
    description = "Validate an orchestration draft: graph issues and stale workflow references."
    input_schema = _schema({"orchestration_id": {"type": "string"}}, ["orchestration_id"])

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.orchestrations.validate(caller, args["orchestration_id"])


class OrchestrationPublish(_GoalTool):
    name = "orchestration_publish"
    description = (
        "Publish the orchestration draft as the next immutable version (its graph must be valid and "
        "its workflow references pinned and fresh)."
    )
    input_schema = _schema(
        {"orchestration_id": {"type": "string"}, "idempotency_key": _KEY},
        ["orchestration_id", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        async def publish(request_digest: str) -> dict[str, Any]:
            spec = await service.orchestrations.publish(
                caller,
                args["orchestration_id"],
                None,
                extra_metadata={
                    "idempotency_key": args["idempotency_key"],
                    "request_digest": request_digest,
                },
            )
            return spec_response(spec)

        return await _once(service, caller, self.name, args, publish)


class GoalStart(_GoalTool):
    name = "goal_start"
    description = (
        "Start a long-running goal on a published orchestration (latest version unless one is "
        "given). The same idempotency key returns the same goal with replayed true."
    )
    input_schema = _schema(
        {
            "orchestration_id": {"type": "string"},
            "orchestration_version": {"type": "integer", "minimum": 1},
            "objective": {"type": "string", "minLength": 1},
            "metadata": {},
            "idempotency_key": _KEY,
        },
        ["orchestration_id", "objective", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.start(
            caller,
            StartGoal(
                orchestration_id=args["orchestration_id"],
                objective=args["objective"],
                idempotency_key=args["idempotency_key"],
                orchestration_version=args.get("orchestration_version"),
                metadata=args.get("metadata"),
            ),
        )


class GoalGet(_GoalTool):
    name = "goal_get"
    description = "A goal with its run links, handoffs, waits and budgets."
    input_schema = _schema({"goal_id": {"type": "string"}}, ["goal_id"])

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.summary(caller, args["goal_id"])


class GoalCancel(_GoalTool):
    name = "goal_cancel"
    description = "Cancel a goal: its active run, waits and unconsumed handoffs are settled."
    input_schema = _schema(
        {"goal_id": {"type": "string"}, "reason": {"type": "string"}, "idempotency_key": _KEY},
        ["goal_id", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        async def cancel(_: str) -> dict[str, Any]:
            out = await service.cancel(
                caller, args["goal_id"], args.get("reason") or "cancelled by agent"
            )
            return {
                k: out[k] for k in ("outcome", "goal", "cancelled_run_id", "cancelled_wait_ids")
            }

        return await _once(service, caller, self.name, args, cancel)


class HandoffEmit(_GoalTool):
    name = "handoff_emit"
    description = (
        "Hand the goal off from its current workflow node along the edge with this transition key, "
        "carrying an artifact. The target is the edge's; an approval-gated edge answers "
        "pending_approval until a human decides, then the same call with the same key commits."
    )
    input_schema = _schema(
        {
            "goal_id": {"type": "string"},
            "transition_key": {"type": "string", "minLength": 1},
            "artifact": _ARTIFACT,
            "idempotency_key": _KEY,
        },
        ["goal_id", "transition_key", "artifact", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.transition(
            caller,
            args["goal_id"],
            TransitionBody(
                transition_key=args["transition_key"],
                idempotency_key=args["idempotency_key"],
                artifact=args["artifact"],
            ),
        )


class HandoffApprove(_GoalTool):
    name = "handoff_approve"
    description = "Approve or reject a pending handoff (human authority required)."
    input_schema = _schema(
        {
            "goal_id": {"type": "string"},
            "handoff_id": {"type": "string"},
            "decision": {"type": "string", "enum": ["approve", "reject"]},
            "reason": {"type": "string"},
            "idempotency_key": _KEY,
        },
        ["goal_id", "handoff_id", "decision", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        from .tenancy import APPROVE

        caller.require_authority(APPROVE)

        async def decide(_: str) -> dict[str, Any]:
            return await service.decide_handoff(
                caller, args["goal_id"], args["handoff_id"], args["decision"], args.get("reason")
            )

        return await _once(service, caller, self.name, args, decide)


class WaitInspect(_GoalTool):
    name = "wait_inspect"
    description = "One wait of a goal's runs: its kind, status, condition and timeout policy."
    input_schema = _schema(
        {"goal_id": {"type": "string"}, "wait_id": {"type": "string"}}, ["goal_id", "wait_id"]
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.wait(caller, args["goal_id"], args["wait_id"])


class WaitResolve(_GoalTool):
    name = "wait_resolve"
    description = (
        "Resolve an external-condition wait with a bounded JSON resolution; the waiting run then "
        "starts. The same idempotency key returns the same resolution (human authority required)."
    )
    input_schema = _schema(
        {
            "goal_id": {"type": "string"},
            "wait_id": {"type": "string"},
            "resolution": {},
            "idempotency_key": _KEY,
        },
        ["goal_id", "wait_id", "resolution", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        from .tenancy import RESOLVE_WAIT

        caller.require_authority(RESOLVE_WAIT)
        goal = await service.goal(caller, args["goal_id"])
        if goal.terminal:
            raise GoalTerminal("terminal goals cannot resolve waits", goal_status=goal.status)
        return await service.resolve_wait(
            caller, args["goal_id"], args["wait_id"], args["idempotency_key"], args["resolution"]
        )


def goal_tools() -> list[Tool]:
    return [
        OrchestrationCreateDraft(),
        OrchestrationValidate(),
        OrchestrationPublish(),
        GoalStart(),
        GoalGet(),
        GoalCancel(),
        HandoffEmit(),
        HandoffApprove(),
        WaitInspect(),
        WaitResolve(),
    ]


__all__ = ["caller_of", "goal_tools"]
