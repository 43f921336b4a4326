"""Settling runs a crash left 'running', and keeping the answer they had streamed.

A run that was active when the engine died ends as an error with
``ENGINE_RESTARTED`` and its terminal event, and its assistant message is
rebuilt from the run's committed ``message.part.updated`` events and marked
``info.interrupted``.

Why rebuild from the event log rather than write the answer while it streams:
every delta the run streamed is already an event, and the event log commits
events in groups (one transaction per batch) before any client sees them. So
the log holds the partial answer exactly up to the last committed event, which
is also exactly what every client was shown, at no cost while streaming: no
extra write per delta or per interval competes with the event log for the one
writer connection. Writing the text part periodically instead would persist the
same text at a coarser cadence (losing up to an interval of what clients had
already seen) and add writes to every run to help the rare one that crashes.
The parts a run completed (text of finished steps, tool results) are still
written as they complete (``RunExecution._persist_progress``); the log only
fills in what came after the last of those writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..events import Event, EventFilter

if TYPE_CHECKING:
    from .records import Message, Run
    from .service import SessionServices

PART_EVENT = "message.part.updated"
RESTARTED_MESSAGE = (
    "the engine stopped while this run was active; the work committed so far is kept"
)
_PAGE = 4096
_TERMINAL_TOOL_STATES = ("completed", "failed", "denied")


def streamed_parts(
    events: Iterable[Event], *, user_message_id: str | None
) -> tuple[str | None, list[dict[str, Any]]]:
    """The assistant message id and its parts as a run's committed part events show them.

    Text parts are the concatenation of their deltas; a tool part is its last
    announced state, and one that had not reached a final state is recorded as
    failed. Parts come in the order they first appeared.
    """
    message_id: str | None = None
    order: list[str] = []
    texts: dict[str, list[str]] = {}
    heads: dict[str, dict[str, Any]] = {}
    for event in events:
        part = event.properties.get("part")
        if not isinstance(part, Mapping) or part.get("messageID") == user_message_id:
            continue
        part_id = part.get("id")
        if not isinstance(part_id, str) or part_id.endswith("-final"):
            continue
        message_id = message_id or part.get("messageID")
        if part.get("type") == "text":
            delta = event.properties.get("delta")
            if isinstance(delta, str) and delta:
                if part_id not in heads:
                    order.append(part_id)
                    texts[part_id] = []
                heads[part_id] = dict(part)
                texts[part_id].append(delta)
        elif part.get("type") == "tool" and "toolCallDelta" not in event.properties:
            # Streamed call previews (toolCallDelta) are not calls yet; a call
            # exists once the run announced it with its arguments.
            if part_id not in heads:
                order.append(part_id)
            heads[part_id] = dict(part)
    parts: list[dict[str, Any]] = []
    for part_id in order:
        part = heads[part_id]
        if part_id in texts:
            part["text"] = "".join(texts[part_id])
        elif part.get("state") not in _TERMINAL_TOOL_STATES:
            part["state"] = "failed"
            part["error"] = "the engine stopped before the tool call finished"
        parts.append(part)
    return message_id, parts


def interrupted_message(
    run: Run,
    message_id: str,
    stored: Message | None,
    streamed: Sequence[Mapping[str, Any]],
) -> Message:
    """The stored assistant message (if any) completed with what streamed after it was written."""
    from .records import Message

    if stored is None:
        stored = Message(
            id=message_id,
            session_id=run.session_id,
            role="assistant",
            parts=(),
            created_at_ms=run.started_at_ms,
            run_id=run.id,
            info={
                "runID": run.id,
                "model": {"providerID": run.provider_id, "modelID": run.model_id},
            },
        )
    known = {p.get("id") for p in stored.parts}
    extra = tuple(dict(p) for p in streamed if p.get("id") not in known)
    return attrs.evolve(
        stored, parts=(*stored.parts, *extra), info={**stored.info, "interrupted": True}
    )


class RunRecovery:
    """Ends orphaned runs (see the module docstring)."""

    def __init__(self, services: SessionServices) -> None:
        self.s = services

    async def settle_all(self, runs: Iterable[Run]) -> None:
        for run in runs:
            await self.settle(run)

    async def settle(self, run: Run) -> None:
        message_id, streamed = streamed_parts(
            await self._part_events(run), user_message_id=run.user_message_id
        )
        message: Message | None = None
        if message_id is not None:
            stored = await self.s.repo.get_message(message_id)
            message = interrupted_message(run, message_id, stored, streamed)
            if not message.parts:
                message = None
        now = self.s.clock.now_ms()
        settled = attrs.evolve(
            run,
            status="error",
            error_code="ENGINE_RESTARTED",
            failure_category="runtime",
            finished_at_ms=now,
            last_activity_at_ms=now,
            error_message=RESTARTED_MESSAGE,
            assistant_message_id=message.id if message is not None else run.assistant_message_id,
        )
        # One transaction: the run is settled together with its partial answer.
        await self.s.repo.finish_run(settled, message)
        self.s.events.publish(
            "session.run.finished",
            {
                "sessionID": run.session_id,
                "runID": run.id,
                "finishedAtMs": now,
                "status": "error",
                "error": {"code": "ENGINE_RESTARTED", "message": RESTARTED_MESSAGE},
                "failureCategory": "runtime",
            },
        )

    async def _part_events(self, run: Run) -> list[Event]:
        wanted = EventFilter(session_id=run.session_id, run_id=run.id, types=(PART_EVENT,))
        found: list[Event] = []
        after = 0
        while True:
            page = await self.s.events.replay(wanted, after_seq=after, limit=_PAGE)
            found.extend(page)
            if len(page) < _PAGE:
                return found
            after = page[-1].seq
