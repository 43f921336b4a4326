"""What an instance learns from its session's events, and the messages it tells itself.

An instance actor follows its session's event stream (from the moment it
starts, so no run of its is missed). The watcher task reads it and turns what
matters into messages to the actor's own mailbox, never touching the
instance's record itself:

* ``session.run.started`` → :class:`RunBegan` (a run the instance did not start
  itself, say a plain ``prompt_async`` on its session, is followed all the same);
* ``session.run.finished`` → :class:`RunEnded` (its status decides the instance's);
* ``provider.usage`` and a tool part starting → one :class:`SaveUsage` at a time
  (the record and ``agent_team.budget.usage`` follow the scope's counters); a
  policy cost rate above the engine's is charged to the scope here;
* ``tool.denied`` by the registry view → ``agent_team.capability.denied``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from actors import ActorDead, MailboxFull

from ..events import Event, EventFilter, EventLog, EventStream, StreamEnded
from . import events as ev

if TYPE_CHECKING:
    from .instance import InstanceActor
    from .schema import InstanceStatus

_WATCHED = frozenset(
    {
        "provider.usage",
        "message.part.updated",
        "tool.denied",
        "session.run.started",
        "session.run.finished",
    }
)


@attrs.frozen
class Verdict:
    status: InstanceStatus
    reason: str | None = None
    exhausted_by: str | None = None


# ------------------------------------------------------------------ messages to itself
@attrs.frozen
class RunBegan:
    run_id: str


@attrs.frozen
class RunEnded:
    run_id: str
    status: str
    error_code: str | None = None
    error_message: str | None = None


@attrs.frozen
class SaveUsage:
    """Record the scope's usage and announce it (one in the mailbox at a time)."""


@attrs.frozen
class Finish:
    """The scope has ended and the run had its moment: record the end, announce it, stop."""


# ------------------------------------------------------------------ the watcher
def _relevant(event: Event) -> bool:
    if event.type != "message.part.updated":
        return True
    part = event.properties.get("part") or {}
    # Only a tool part that starts executing charges anything (a tool call).
    return part.get("type") == "tool" and part.get("state") == "running"


def watch_session(events: EventLog, session_id: str) -> EventStream:
    """The stream of a session's events an instance follows (its cursor is now)."""
    return EventStream(
        events, EventFilter(session_id=session_id, types=_WATCHED, predicate=_relevant)
    )


async def follow_session(actor: InstanceActor, stream: EventStream) -> None:
    """The instance's watcher task (see the module docstring); ends with the stream."""
    with stream:
        while True:
            try:
                batch = await stream.receive()
            except StreamEnded:
                return
            charged = False
            for event in batch:
                if event.type == "session.run.started":
                    _tell(actor, RunBegan(event.properties["runID"]))
                elif event.type == "session.run.finished":
                    _tell(actor, _run_ended(event.properties))
                elif event.type == "tool.denied":
                    _report_view_denial(actor, event)
                elif event.type == "provider.usage":
                    _supplement_cost(actor, event.properties)
                    charged = True
                else:
                    charged = True
            if charged and not actor.usage_save_pending:
                actor.usage_save_pending = _tell(actor, SaveUsage())


def _tell(actor: InstanceActor, message: object) -> bool:
    try:
        actor.ref.tell(message)
    except ActorDead:
        return False  # stopping: its end is recorded already, or stopped() saves the usage
    except MailboxFull:
        # Only run starts and ends are lost this way if the mailbox is flooded;
        # a usage save is retried with the next charge.
        return False
    return True


def _run_ended(properties: Mapping[str, Any]) -> RunEnded:
    error = properties.get("error") or {}
    return RunEnded(
        run_id=properties["runID"],
        status=properties.get("status") or "error",
        error_code=error.get("code"),
        error_message=error.get("message"),
    )


def _supplement_cost(actor: InstanceActor, usage: Mapping[str, Any]) -> None:
    """Charge the difference when the policy's cost rate is above the engine's."""
    rate = actor.runtime.cost_per_1k_tokens_usd
    scope = actor.scope
    if not rate or scope is None or scope.cancelled:
        return
    tokens = usage.get("totalTokens") or 0
    extra = tokens * rate / 1000.0 - float(usage.get("costUsd") or 0.0)
    if extra > 0:
        scope.charge(cost_usd=extra)


def _report_view_denial(actor: InstanceActor, event: Event) -> None:
    # The registry view refuses tools outside the allowlist before any gate
    # runs; that refusal is a capability denial too. (The gate reports its own.)
    if event.properties.get("code") == "TOOL_NOT_ALLOWED":
        instance = actor.instance
        actor.ctx.events.publish(
            ev.CAPABILITY_DENIED,
            session_id=instance.session_id,
            run_id=event.properties.get("runID"),
            mission_id=instance.mission_id,
            instance_id=instance.id,
            tool=event.properties.get("tool"),
            reason=event.properties.get("reason"),
        )


__all__ = [
    "Finish",
    "RunBegan",
    "RunEnded",
    "SaveUsage",
    "Verdict",
    "follow_session",
    "watch_session",
]
