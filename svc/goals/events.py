"""Durable goal events and their cursors.

Every state change of a goal is committed together with a durable event row in the
same transaction (``goal_events``), so the event history can never disagree with the
state it describes, a restart loses nothing, and a client resuming from its cursor
sees exactly what it missed.

**Cursor semantics.** A cursor is the event row's id: strictly increasing, global
across goals (so the cursors of one goal increase but are not contiguous), never
reused (SQLite ``AUTOINCREMENT``), and stable across restarts. ``GET
/goals/{id}/events?cursor=N`` returns events with cursor > N; an SSE client resumes
with ``Last-Event-ID: N``. Each goal keeps its newest ``goal_event_retention`` events;
``retained_from_cursor`` is the oldest one still held.

Each event also carries the projection state right after it (``snapshot``), which
replay-mode projections read; the snapshot is never part of the event's wire form.

After a commit the service publishes a non-durable ``orchestration.goal.*`` event on
the engine bus (topic ``goal/<id>``) for live listeners; durable replay only reads the
table.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..events import KEEPALIVE, json_frame

if TYPE_CHECKING:
    from .event_repository import GoalEventRepository

SCHEMA_VERSION = 1
EVENT_SOURCE = "stateful_runtime"
KEEPALIVE_SECONDS = 10.0
REPLAY_PAGE = 500

STARTED = "stateful_runtime.goal.started"
PAUSED = "stateful_runtime.goal.paused"
RESUMED = "stateful_runtime.goal.resumed"
CANCELLED = "stateful_runtime.goal.cancelled"
TRANSITIONED = "stateful_runtime.goal.transitioned"
HANDOFF_PENDING = "stateful_runtime.goal.handoff_pending_approval"
HANDOFF_DECIDED = "stateful_runtime.goal.handoff_decided"
AWAITING_TRANSITION = "stateful_runtime.goal.awaiting_transition"
TERMINAL = "stateful_runtime.goal.terminal"
LIMIT_REACHED = "stateful_runtime.goal.limit_reached"
RUN_STARTED = "stateful_runtime.run.started"
RUN_SETTLED = "stateful_runtime.run.settled"
RUN_LAUNCH_FAILED = "stateful_runtime.run.launch_failed"
WAIT_CREATED = "stateful_runtime.wait.created"
WAIT_RESOLVED = "stateful_runtime.wait.external_condition_resolved"
WAIT_TIMER_FIRED = "stateful_runtime.wait.timer_fired"
WAIT_TIMED_OUT = "stateful_runtime.wait.timed_out"
WAIT_ESCALATED = "stateful_runtime.wait.escalated"
WAIT_REMINDER = "stateful_runtime.wait.reminder"


def goal_stream_id(goal_id: str) -> str:
    """The ``run_id`` of a goal's own lifecycle events (linked runs use their run id)."""
    return f"goal:{goal_id}"


@attrs.frozen
class NewEvent:
    """An event to append in the same transaction as the change it describes."""

    event_id: str
    event_type: str
    payload: Mapping[str, Any]
    run_id: str | None = None
    """Defaults to the goal's own stream; linked-run events name the run."""
    actor: Mapping[str, Any] | None = None
    causation_id: str | None = None


@attrs.frozen
class GoalEvent:
    """A committed event: its cursor and its wire record (the snapshot stays internal)."""

    cursor: int
    goal_id: str
    record: Mapping[str, Any]
    snapshot: Mapping[str, Any] | None = attrs.field(default=None, repr=False)

    @property
    def event_type(self) -> str:
        return str(self.record["event_type"])

    def to_wire(self) -> dict[str, Any]:
        return {"cursor": self.cursor, "event": dict(self.record)}


def events_page_wire(goal_id: str, events: list[GoalEvent]) -> dict[str, Any]:
    return {
        "goal_id": goal_id,
        "events": [e.to_wire() for e in events],
        "count": len(events),
        "last_cursor": events[-1].cursor if events else None,
        "event_source": EVENT_SOURCE,
    }


class GoalEventFeed:
    """Reads of the durable goal events, and wake-ups for live streams.

    ``notify()`` is called after every commit that appended events; a stream waits on
    the current wake-up event, captured before it reads, so no commit can slip
    between its read and its wait.
    """

    def __init__(self, repo: GoalEventRepository, now_ms: Any) -> None:
        self._repo = repo
        self._now_ms = now_ms
        self._changed = trio.Event()
        self.closed = False

    def notify(self) -> None:
        changed, self._changed = self._changed, trio.Event()
        changed.set()

    @property
    def changed(self) -> trio.Event:
        """Set at the next commit that appends events. Take it *before* reading, then wait on it."""
        return self._changed

    def close(self) -> None:
        """End every live stream (engine shutdown): clients reconnect with their cursor."""
        self.closed = True
        self.notify()

    async def page(self, goal_id: str, *, after: int, limit: int) -> list[GoalEvent]:
        return await self._repo.events_after(goal_id, after, limit)

    async def frames(
        self, goal_id: str, *, after: int, keepalive: float = KEEPALIVE_SECONDS
    ) -> AsyncIterator[bytes]:
        """SSE bytes: a ``ready`` frame, every event after ``after``, then live events and
        keep-alives.

        Frames are ``id: <cursor>`` / ``event: <event_type>`` / ``data: {"cursor", "event"}``.
        """
        yield json_frame(
            {"goal_id": goal_id, "cursor": after, "timestamp_ms": self._now_ms()}, event="ready"
        )
        cursor = after
        while not self.closed:
            changed = self._changed
            page = await self._repo.events_after(goal_id, cursor, REPLAY_PAGE)
            if page:
                cursor = page[-1].cursor
                # One write per page: frames of a burst go out together.
                yield b"".join(
                    json_frame(e.to_wire(), id=e.cursor, event=e.event_type) for e in page
                )
                continue
            with trio.move_on_after(keepalive) as idle:
                await changed.wait()
            if idle.cancelled_caught:
                yield KEEPALIVE


__all__ = [
    "EVENT_SOURCE",
    "GoalEvent",
    "GoalEventFeed",
    "NewEvent",
    "events_page_wire",
    "goal_stream_id",
]
