"""Agent tools for orchestrations and goals.

``orchestration_create_draft``, ``orchestration_validate``, ``orchestration_publish``,
``goal_start``, ``goal_get``, ``goal_cancel``, ``handoff_emit``, ``handoff_approve``,
``wait_inspect`` and ``wait_resolve``, each holding the goal service it was registered
with (:mod:`.tool_base` says as whom they act). Owner checks apply as for HTTP;
deciding handoffs and resolving waits need human authority, so agents are refused (fail
closed).

Mutating tools that create something take an ``idempotency_key``: a retry with the same
arguments returns the stored answer; the same key with other arguments is refused.
The result's output is pretty-printed JSON and its metadata the same JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..tools import Tool, ToolCapabilities
from .errors import GoalTerminal
from .ids import draft_id_for
from .tool_base import KEY_SCHEMA, GoalTool, object_schema, once
from .versions import spec_response

if TYPE_CHECKING:
    from .service import GoalService
    from .tenancy import Caller

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


class OrchestrationCreateDraft(GoalTool):
    name = "orchestration_create_draft"
    description = (
        "Create an orchestration draft (version 0): workflow, wait and terminal nodes joined by "
        "edges "
        "with transition keys and artifact contracts. Validate and publish it before goals can "
        "start."
    )
    input_schema = object_schema(
        {
            "orchestration_id": {"type": "string"},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "root_node_id": {"type": "string"},
            "nodes": {"type": "array", "items": {"type": "object"}},
            "edges": {"type": "array", "items": {"type": "object"}},
            "goal_policy": {"type": "object"},
            "metadata": {},
            "idempotency_key": KEY_SCHEMA,
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

        return await once(service, caller, self.name, args, create)


class OrchestrationValidate(GoalTool):
    name = "orchestration_validate"
    description = "Validate an orchestration draft: graph issues and stale workflow references."
    input_schema = object_schema({"orchestration_id": {"type": "string"}}, ["orchestration_id"])

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.orchestrations.validate(caller, args["orchestration_id"])


class OrchestrationPublish(GoalTool):
    name = "orchestration_publish"
    description = (
        "Publish the orchestration draft as the next immutable version (its graph must be valid "
        "and "
        "its workflow references pinned and fresh)."
    )
    input_schema = object_schema(
        {"orchestration_id": {"type": "string"}, "idempotency_key": KEY_SCHEMA},
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

        return await once(service, caller, self.name, args, publish)


class GoalStart(GoalTool):
    name = "goal_start"
    description = (
        "Start a long-running goal on a published orchestration (latest version unless one is "
        "given). The same idempotency key returns the same goal with replayed true."
    )
    input_schema = object_schema(
        {
            "orchestration_id": {"type": "string"},
            "orchestration_version": {"type": "integer", "minimum": 1},
            "objective": {"type": "string", "minLength": 1},
            "metadata": {},
            "idempotency_key": KEY_SCHEMA,
        },
        ["orchestration_id", "objective", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        from .requests import StartGoal

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


class GoalGet(GoalTool):
    name = "goal_get"
    description = "A goal with its run links, handoffs, waits and budgets."
    input_schema = object_schema({"goal_id": {"type": "string"}}, ["goal_id"])

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.summary(caller, args["goal_id"])


class GoalCancel(GoalTool):
    name = "goal_cancel"
    description = "Cancel a goal: its active run, waits and unconsumed handoffs are settled."
    input_schema = object_schema(
        {
            "goal_id": {"type": "string"},
            "reason": {"type": "string"},
            "idempotency_key": KEY_SCHEMA,
        },
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

        return await once(service, caller, self.name, args, cancel)


class HandoffEmit(GoalTool):
    name = "handoff_emit"
    description = (
        "Hand the goal off from its current workflow node along the edge with this transition key, "
        "carrying an artifact. The target is the edge's; an approval-gated edge answers "
        "pending_approval until a human decides, then the same call with the same key commits."
    )
    input_schema = object_schema(
        {
            "goal_id": {"type": "string"},
            "transition_key": {"type": "string", "minLength": 1},
            "artifact": _ARTIFACT,
            "idempotency_key": KEY_SCHEMA,
        },
        ["goal_id", "transition_key", "artifact", "idempotency_key"],
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        from .requests import TransitionBody

        return await service.transition(
            caller,
            args["goal_id"],
            TransitionBody(
                transition_key=args["transition_key"],
                idempotency_key=args["idempotency_key"],
                artifact=args["artifact"],
            ),
        )


class HandoffApprove(GoalTool):
    name = "handoff_approve"
    description = "Approve or reject a pending handoff (human authority required)."
    input_schema = object_schema(
        {
            "goal_id": {"type": "string"},
            "handoff_id": {"type": "string"},
            "decision": {"type": "string", "enum": ["approve", "reject"]},
            "reason": {"type": "string"},
            "idempotency_key": KEY_SCHEMA,
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

        return await once(service, caller, self.name, args, decide)


class WaitInspect(GoalTool):
    name = "wait_inspect"
    description = "One wait of a goal's runs: its kind, status, condition and timeout policy."
    input_schema = object_schema(
        {"goal_id": {"type": "string"}, "wait_id": {"type": "string"}}, ["goal_id", "wait_id"]
    )

    async def run(
        self, service: GoalService, caller: Caller, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        return await service.wait(caller, args["goal_id"], args["wait_id"])


class WaitResolve(GoalTool):
    name = "wait_resolve"
    description = (
        "Resolve an external-condition wait with a bounded JSON resolution; the waiting run then "
        "starts. The same idempotency key returns the same resolution (human authority required)."
    )
    input_schema = object_schema(
        {
            "goal_id": {"type": "string"},
            "wait_id": {"type": "string"},
            "resolution": {},
            "idempotency_key": KEY_SCHEMA,
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


def goal_tools(service: GoalService) -> list[Tool]:
    """The goal tools, bound to ``service`` (registered by the goals component)."""
    return [
        tool(service)
        for tool in (
            OrchestrationCreateDraft,
            OrchestrationValidate,
            OrchestrationPublish,
            GoalStart,
            GoalGet,
            GoalCancel,
            HandoffEmit,
            HandoffApprove,
            WaitInspect,
            WaitResolve,
        )
    ]


__all__ = ["goal_tools"]
