"""The one path every tool call takes.

Existence, allowlist, gates, permission, arguments, execution.

Session runs, ``POST /tool/execute``, the CLI ``tool`` command and ``batch``
sub-calls all dispatch through :class:`ToolDispatcher`, so a policy enforced
in one place is enforced everywhere. Outside an interactive session an
``ask`` rule cannot be answered, so it fails closed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import attrs
import trio

from ..errors import SvcError, ValidationFailed
from ..tools import ToolContext, ToolRegistry, ToolView
from ..tools.schema import validate_args
from .permissions import PermissionService

if TYPE_CHECKING:
    # An annotation only: the run requests load with the first run.
    from ..audit.decisions import DecisionSink, Effect
    from .requests import ToolGate

log = logging.getLogger("svc.tools")

State = Literal["completed", "failed", "denied"]


@attrs.frozen
class ToolOutcome:
    tool: str
    state: State
    output: str | None = None
    error: str | None = None
    code: str | None = None
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    permission_request_id: str | None = None

    @property
    def ok(self) -> bool:
        return self.state == "completed"


StateListener = Callable[[str, Mapping[str, Any]], None]
"""Called with ``("pending"|"running", extra)`` as a call moves through the gates."""


class ToolDispatcher:
    def __init__(
        self, registry: ToolRegistry, permissions: PermissionService, *, exec_timeout_s: float
    ) -> None:
        self.registry = registry
        self.permissions = permissions
        self.exec_timeout_s = exec_timeout_s
        self.decision_sink: DecisionSink | None = None
        """Told every allow/deny/approval decision (set by the incident monitor)."""

    def _decided(
        self,
        domain: str,
        effect: Effect,
        tool: str,
        ctx: ToolContext,
        code: str | None = None,
        approval_id: str | None = None,
    ) -> None:
        if self.decision_sink is not None:
            self.decision_sink(
                domain=domain,
                effect=effect,
                subject=tool,
                actor_id=ctx.agent_id or ctx.session_id,
                scope_id=ctx.run_id or ctx.session_id,
                code=code,
                approval_id=approval_id,
            )

    async def dispatch(
        self,
        name: str,
        args: Mapping[str, Any],
        ctx: ToolContext,
        *,
        view: ToolView | None = None,
        gates: Sequence[ToolGate] = (),
        on_state: StateListener | None = None,
    ) -> ToolOutcome:
        tool = self.registry.get(name)
        if tool is None:
            return ToolOutcome(
                name, "failed", error=f"unknown tool `{name}`", code="TOOL_NOT_FOUND"
            )
        canonical = tool.name
        if view is not None and not view.allows(canonical):
            self._decided("tool_policy", "deny", canonical, ctx, "TOOL_NOT_ALLOWED")
            return ToolOutcome(
                canonical,
                "denied",
                error=f"tool `{canonical}` is not allowed in this run",
                code="TOOL_NOT_ALLOWED",
            )
        for gate in gates:
            reason = await gate(canonical, args)
            if reason:
                self._decided("capability_gate", "deny", canonical, ctx, "TOOL_CAPABILITY_DENIED")
                return ToolOutcome(canonical, "denied", error=reason, code="TOOL_CAPABILITY_DENIED")

        request_id: str | None = None
        action = self.permissions.evaluate(tool.permission, session_id=ctx.session_id)
        if action == "deny":
            self._decided("permission", "deny", canonical, ctx, "TOOL_DISPATCH_DENIED")
            return ToolOutcome(
                canonical,
                "denied",
                error=f"tool `{canonical}` is denied by permission rule",
                code="TOOL_DISPATCH_DENIED",
            )
        if action == "ask":
            if not ctx.interactive:
                self._decided("permission", "deny", canonical, ctx, "TOOL_DISPATCH_DENIED")
                return ToolOutcome(
                    canonical,
                    "denied",
                    code="TOOL_DISPATCH_DENIED",
                    error=f"tool `{canonical}` requires approval and cannot run without "
                    "an interactive approval",
                )
            if on_state is not None:
                on_state("pending", {})
            outcome, request = await self.permissions.request(
                tool=canonical,
                permission=tool.permission,
                args=args,
                session_id=ctx.session_id,
                run_id=ctx.run_id,
                call_id=ctx.call_id,
                message_id=ctx.message_id,
            )
            request_id = request.id
            self._decided("permission", "approval_required", canonical, ctx, None, request_id)
            if outcome == "denied":
                self._decided("permission", "deny", canonical, ctx, "PERMISSION_DENIED", request_id)
                return ToolOutcome(
                    canonical,
                    "denied",
                    error="Permission denied by user",
                    code="PERMISSION_DENIED",
                    permission_request_id=request_id,
                )
            if outcome == "timeout":
                timeout_ms = int(self.permissions.wait_timeout_s * 1000)
                return ToolOutcome(
                    canonical,
                    "failed",
                    error=f"Permission request timed out after {timeout_ms} ms",
                    code="PERMISSION_TIMEOUT",
                    permission_request_id=request_id,
                )

        self._decided("tool_policy", "allow", canonical, ctx, None, request_id)
        try:
            checked = validate_args(tool.input_schema, tool.prepare_args(args))
        except ValidationFailed as exc:
            return ToolOutcome(
                canonical,
                "failed",
                error=exc.message,
                code=exc.code,
                metadata={"field": exc.extra.get("field")},
                permission_request_id=request_id,
            )

        if on_state is not None:
            on_state("running", {})
        limit = float("inf") if tool.bounds_itself else self.exec_timeout_s
        with trio.move_on_after(limit) as timer:
            try:
                result = await tool.execute(checked, ctx)
            except SvcError as exc:
                return ToolOutcome(
                    canonical,
                    "failed",
                    error=exc.message,
                    code=exc.code,
                    metadata=dict(exc.extra),
                    permission_request_id=request_id,
                )
            except Exception as exc:
                log.exception("tool %s raised", canonical)
                return ToolOutcome(
                    canonical,
                    "failed",
                    error=f"tool `{canonical}` failed: {type(exc).__name__}",
                    code="TOOL_EXECUTION_FAILED",
                    permission_request_id=request_id,
                )
        if timer.cancelled_caught:
            return ToolOutcome(
                canonical,
                "failed",
                code="TOOL_TIMEOUT",
                permission_request_id=request_id,
                error=f"tool `{canonical}` timed out after {int(self.exec_timeout_s * 1000)} ms",
            )
        return ToolOutcome(
            canonical,
            "completed",
            output=result.output,
            metadata=dict(result.metadata),
            permission_request_id=request_id,
        )
