"""How a run ends: its outcome, its final record and transcript, and its one terminal event."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import attrs

from supervisors import BudgetScope

from ..errors import SvcError
from .records import Run, RunStatus
from .records import Usage as RunUsage
from .run_transcript import RunTranscript

if TYPE_CHECKING:
    from .service import SessionServices

log = logging.getLogger("svc.sessions")

FAILURE_CATEGORIES = {
    "AUTHENTICATION_ERROR": "authentication",
    "PROVIDER_NOT_CONFIGURED": "provider",
    "MODEL_SELECTION_REQUIRED": "provider",
    "RATE_LIMIT_EXCEEDED": "provider",
    "CONTEXT_LENGTH_EXCEEDED": "provider",
    "PROVIDER_SERVER_ERROR": "provider",
    "PROVIDER_UNAVAILABLE": "provider",
    "PROVIDER_REQUEST_INVALID": "provider",
    "PROVIDER_STREAM_INTERRUPTED": "provider",
    "VALIDATION_FAILED": "validation",
}


@attrs.frozen
class Outcome:
    status: RunStatus
    error_code: str | None = None
    error_message: str | None = None
    failure_category: str | None = None


def cancel_outcome(budget: BudgetScope, cancel_reason: str | None) -> Outcome:
    """Why a run's scope was cancelled: the user, its deadline, or a budget."""
    exhaustion = budget.exhausted or budget.cancelled_by
    if cancel_reason is not None and exhaustion is None:
        return Outcome("cancelled", None, None, "user_cancelled")
    if exhaustion is not None and exhaustion.limit == "max_duration_ms":
        ms = exhaustion.limits.max_duration_ms
        return Outcome("timeout", "ENGINE_TIMEOUT", f"the run timed out after {ms} ms", "timeout")
    if exhaustion is not None:
        where = "" if exhaustion.scope == budget.name else f" ({exhaustion.scope})"
        return Outcome(
            "cancelled",
            "BUDGET_EXHAUSTED",
            f"budget exhausted: {exhaustion.limit}{where}",
            "budget_exhausted",
        )
    reason = budget.cancel_reason or "cancelled"
    return Outcome(
        "cancelled", None, reason if reason != "user_cancelled" else None, "user_cancelled"
    )


async def settle(
    services: SessionServices,
    run: Run,
    transcript: RunTranscript,
    outcome: Outcome,
    *,
    usage: RunUsage,
    final_text: str,
) -> Run:
    """Record the run's end with its assistant message (one transaction) and announce it.

    Callers shield it: the record and the terminal event must land whatever
    ended the run.
    """
    events = services.events
    now = services.clock.now_ms()

    def props(**extra: Any) -> dict[str, Any]:
        return {"sessionID": run.session_id, "runID": run.id, **extra}

    transcript.keep_inflight()
    if transcript.current_tool is not None:
        # The run ended while this call was in flight: record it as failed.
        part = transcript.current_tool
        part["state"] = "failed"
        part["error"] = f"the run ended ({outcome.status}) before the tool call finished"
        events.publish("message.part.updated", props(part=dict(part)))
        transcript.parts.append(part)
        transcript.current_tool = None
    if outcome.status == "error" and outcome.error_code:
        transcript.append_text(
            ("\n" if transcript.parts else "")
            + f"ENGINE_ERROR: {outcome.error_code}: {outcome.error_message}"
        )
    run = attrs.evolve(
        run,
        status=outcome.status,
        error_code=outcome.error_code,
        error_message=outcome.error_message,
        failure_category=outcome.failure_category,
        usage=usage,
        finished_at_ms=now,
        last_activity_at_ms=now,
        assistant_message_id=transcript.id if transcript.parts else None,
    )
    assistant = transcript.snapshot(run) if transcript.parts else None
    try:
        await services.repo.finish_run(run, assistant)
    except SvcError:
        log.exception("could not record the end of run %s", run.id)
    if assistant is not None:
        events.publish(
            "message.part.updated",
            props(
                part={
                    "id": f"{transcript.id}-final",
                    "sessionID": run.session_id,
                    "messageID": transcript.id,
                    "type": "text",
                    "text": final_text or transcript.text(),
                }
            ),
        )
    if outcome.status == "error":
        events.publish(
            "session.error",
            props(error={"code": outcome.error_code, "message": outcome.error_message}),
        )
    idle = "error" if outcome.status == "error" else "idle"
    events.publish("session.updated", props(status=idle))
    events.publish("session.status", props(status=idle))
    events.publish(
        "session.run.finished",
        props(
            finishedAtMs=now,
            status=outcome.status,
            error={"code": outcome.error_code, "message": outcome.error_message}
            if outcome.error_code
            else None,
            failureCategory=outcome.failure_category,
            providerID=run.provider_id,
            usage=usage.to_wire(),
        ),
    )
    return run
