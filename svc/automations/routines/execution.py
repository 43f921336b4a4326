"""How a routine run executes: entrypoint handlers.

By default a run is a session run (:func:`session_entrypoint`): the model is
routed from ``args.model_policy``, the prompt is built from the mission, and
the session sees only the routine's allowed tools. Other domains (or tests)
may register a handler for an entrypoint name or prefix with
``engine.automations.routines.register_entrypoint``; it gets the same
:class:`RunContext` (the run, its budget scope, callbacks to record the session
and model) and returns an :class:`EntrypointResult`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

import attrs

from supervisors import BudgetScope

from ...errors import SvcError
from ...providers.types import ProviderError
from ...sessions import Usage
from ..routing import ModelChoice, route_model
from ..session_runs import StepRequest, run_step
from .policy import external_gate
from .prompt import build_prompt, system_contract
from .records import RoutineRun

if TYPE_CHECKING:
    from ...engine import Engine

ResultStatus = Literal["completed", "failed", "cancelled"]


@attrs.frozen
class EntrypointResult:
    status: ResultStatus
    text: str = ""
    detail: str | None = None
    session_id: str | None = None
    usage: Usage | None = None


@attrs.frozen
class RunContext:
    engine: Engine
    run: RoutineRun
    budget: BudgetScope = attrs.field(eq=False)
    """The run's scope: pausing the run cancels it."""
    on_session: Callable[[str, str], Awaitable[None]] = attrs.field(eq=False)
    """Record ``(session_id, session_run_id)`` on the run."""
    on_model: Callable[[ModelChoice], Awaitable[None]] = attrs.field(eq=False)
    """Record the model chosen (and announce ``routine.run.model_selected``)."""


EntrypointHandler = Callable[[RunContext], Awaitable[EntrypointResult]]


async def session_entrypoint(ctx: RunContext) -> EntrypointResult:
    run = ctx.run
    engine = ctx.engine
    try:
        model = route_model(
            engine.providers, run.args.get("model_policy"), orchestrated=run.mode == "orchestrated"
        )
    except (ProviderError, SvcError) as exc:
        return EntrypointResult("failed", detail=f"no model available: {exc.message}")
    await ctx.on_model(model)
    step = StepRequest(
        title=f"Routine {run.routine_id}",
        prompt=build_prompt(run, registered_tools=engine.tools),
        system=system_contract(run),
        provider_id=model.provider_id,
        model_id=model.model_id,
        allow=tuple(run.allowed_tools),
        source_kind="routine",
        source_metadata={"routineID": run.routine_id, "runID": run.run_id},
        metadata={"routineID": run.routine_id, "routineRunID": run.run_id},
        budget=ctx.budget,
        gates=external_gate(bool(run.snapshot.get("external_integrations_allowed"))),
    )
    try:
        result = await run_step(engine, step, on_session=ctx.on_session)
    except (ProviderError, SvcError) as exc:
        return EntrypointResult("failed", detail=exc.message)
    session_run = result.run
    if session_run.status == "completed":
        return EntrypointResult(
            "completed", text=result.text, session_id=result.session_id, usage=session_run.usage
        )
    if session_run.status == "cancelled" and session_run.error_code is None:
        return EntrypointResult(
            "cancelled",
            text=result.text,
            detail="the run was cancelled",
            session_id=result.session_id,
            usage=session_run.usage,
        )
    detail = session_run.error_message or f"the session run ended {session_run.status}"
    return EntrypointResult(
        "failed",
        text=result.text,
        detail=detail,
        session_id=result.session_id,
        usage=session_run.usage,
    )


__all__ = ["EntrypointHandler", "EntrypointResult", "RunContext", "session_entrypoint"]
