"""The goal actor: one per active goal, the only writer of that goal's state.

Every mutation of a goal (transition, completion, pause, resume, cancel, handoff
decision, wait resolution, projection action) is a message to ``goal/<goal_id>``, so
they are applied one at a time: two concurrent transitions of one goal are serialized
and the second sees the first's result. Reads go to the store.

Besides its mailbox the actor keeps one piece of live work per goal, in a cancel scope
whose **deadline is the goal's ``deadline_at_ms``**: it watches the active run until it
settles and sleeps until the next wait timer. When the deadline passes, the scope is
cancelled and the goal is paused for review or expired, as its ``on_limit`` says. The
work is re-armed after every change. A goal that ends stops its actor; any later
message activates a fresh one from the store.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import attrs
import trio

from actors import Actor, ActorDead, MailboxFull

from ..errors import SvcError
from ..events import EventFilter, EventStream, StreamEnded
from .completion import complete
from .control import apply_limit, cancel, launch_failed, pause, resume
from .errors import InvalidGoalRequest
from .events import RUN_SETTLED, NewEvent
from .goal import Goal
from .handoff_decisions import decide_handoff
from .kernel import LimitRejected, transition
from .launch import ensure_started
from .messages import (
    Cancel,
    Complete,
    DecideHandoff,
    DispatchAction,
    GetGoal,
    Pause,
    ResolveWait,
    Resume,
    Transition,
)
from .repository import Commit
from .runtime import GoalRuntime, PinnedVersion
from .wait_ops import apply_due_waits, resolve_wait
from .waits import next_due_ms

log = logging.getLogger("svc.goals")


# ---------------------------------------------------------------------- wake-ups
@attrs.frozen
class RunSettled:
    run_id: str


@attrs.frozen
class WaitsDue:
    pass


@attrs.frozen
class DeadlineReached:
    pass


@attrs.frozen
class Release:
    """Told to itself once the goal has ended, behind the requests already queued."""


@attrs.define(eq=False)
class _Work:
    """One arming of the goal's live work; ``superseded`` tells a re-arm from the deadline."""

    scope: trio.CancelScope
    superseded: bool = False


class GoalActor(Actor):
    mailbox_size = 256

    def __init__(self, rt: GoalRuntime, goal: Goal, pinned: PinnedVersion, dispatcher: Any) -> None:
        self.rt = rt
        self.goal = goal
        self.pinned = pinned
        self._dispatch = dispatcher
        self._work: _Work | None = None
        self._releasing = False

    async def started(self) -> None:
        await self._after_change()

    async def stopped(self, error: BaseException | None) -> None:
        self._work = None

    async def receive(self, message: object) -> object:
        try:
            return await self._handle(message)
        finally:
            if self.goal.terminal and not self._releasing:
                self._release()

    def _release(self) -> None:
        """The goal has ended: stop the actor once the messages already queued are answered.

        Stopping at once would fail every request queued behind this one with ActorDead, and
        each retry would find a fresh incarnation that answers one request and stops again;
        a ``Release`` queued behind them lets this incarnation answer them all first. Later
        messages re-activate the goal from the store.
        """
        self._releasing = True
        try:
            self.ref.tell(Release())
        except MailboxFull:
            # A full mailbox: stop now; the queued callers retry on a fresh incarnation.
            self.stop()

    async def _handle(self, message: object) -> object:
        match message:
            case GetGoal():
                return self.goal
            case Release():
                if self.goal.terminal:
                    self.stop()
                return None
            case Transition(caller=caller, request=request):
                try:
                    return await self._mutate(
                        transition(self.rt, self.goal, self.pinned, caller, request)
                    )
                except LimitRejected as rejected:
                    self.goal = await apply_limit(self.rt, self.goal, rejected.limit, caller)  # type: ignore[arg-type]
                    self._rearm()
                    raise InvalidGoalRequest(
                        f"goal policy rejected the transition: {rejected.limit}",
                        check="limits",
                        limit=rejected.limit,
                        goal_status=self.goal.status,
                        goal=self.goal.to_wire(),
                    ) from None
            case Complete(caller=caller, request=request):
                return await self._mutate(
                    complete(self.rt, self.goal, self.pinned, caller, request)
                )
            case Pause(caller=caller, reason=reason):
                return await self._mutate(pause(self.rt, self.goal, caller, reason))
            case Resume(caller=caller, reason=reason):
                return await self._mutate(resume(self.rt, self.goal, caller, reason))
            case Cancel(caller=caller, reason=reason):
                return await self._mutate(cancel(self.rt, self.goal, caller, reason))
            case DecideHandoff(
                caller=caller, handoff_id=handoff_id, decision=decision, reason=reason
            ):
                return await self._mutate(
                    decide_handoff(self.rt, self.goal, caller, handoff_id, decision, reason)
                )
            case ResolveWait(caller=caller, wait_id=wait_id, idempotency_key=key, payload=payload):
                return await self._mutate(
                    resolve_wait(self.rt, self.goal, caller, wait_id, key, payload)
                )
            case DispatchAction(caller=caller, action_id=action_id, body=body):
                return await self._dispatch(self, caller, action_id, body)
            case RunSettled(run_id=run_id):
                await self._guarded(self._record_settled(run_id))
                return None
            case WaitsDue():
                await self._guarded(self._waits_due())
                return None
            case DeadlineReached():
                await self._guarded(self._deadline())
                return None
        raise InvalidGoalRequest(f"the goal actor cannot handle {type(message).__name__}")

    # ------------------------------------------------------------------ operations
    async def perform(self, operation: Any) -> tuple[Goal, dict[str, Any]]:
        """Run one operation coroutine (returning ``(goal, body)``) and adopt its goal; for action
        dispatch."""
        goal, body = await operation
        self.goal = goal
        await self._after_change()
        return goal, body

    async def _mutate(self, operation: Any) -> dict[str, Any]:
        _, body = await self.perform(operation)
        return body

    async def _guarded(self, work: Any) -> None:
        # Internal wake-ups are told, not asked: an error here must not crash the actor
        # (a crash loop would escalate through the goals supervisor); it is logged and
        # the next wake-up or activation retries.
        try:
            await work
        except (SvcError, OSError, RuntimeError):
            log.exception("goal %s: internal update failed", self.goal.goal_id)

    async def _record_settled(self, run_id: str) -> None:
        if run_id == self.goal.settled_run_id:
            return  # already recorded (a watch may race a re-arm)
        run = await self.rt.workflows.run(run_id)
        if run is None or not run.terminal:
            self._rearm()
            return
        touched = self.rt.stamp(self.goal, settled_run_id=run_id)
        await self.rt.commit(
            Commit(
                goal=touched,
                events=(
                    NewEvent(
                        event_id=f"{run_id}:settled",
                        event_type=RUN_SETTLED,
                        run_id=run_id,
                        causation_id=self.goal.goal_id,
                        actor={"kind": "system", "id": "goal-runtime"},
                        payload={
                            "goal_id": self.goal.goal_id,
                            "run_id": run_id,
                            "status": run.status,
                            "total_tokens": run.total_tokens,
                            "estimated_cost_usd": run.estimated_cost_usd,
                        },
                    ),
                ),
            )
        )
        self.goal = touched
        self.rt.bus(
            touched, "orchestration.goal.run_settled", {"runID": run_id, "status": run.status}
        )
        self._rearm()

    async def _waits_due(self) -> None:
        self.goal = await apply_due_waits(self.rt, self.goal)
        await self._after_change()

    async def _deadline(self) -> None:
        goal = self.goal
        if goal.terminal or goal.policy.deadline_at_ms is None or goal.deadline_passed:
            return
        self.goal = await apply_limit(self.rt, goal, "deadline")
        await self._after_change()

    # ------------------------------------------------------------------ live work
    async def _after_change(self) -> None:
        """Start the active run if it should run and does not exist yet, then re-arm the
        live work."""
        goal = self.goal
        if not goal.terminal and goal.status != "paused" and goal.active_run_id is not None:
            try:
                await ensure_started(self.rt, goal, self.pinned)
            except (SvcError, RuntimeError) as exc:
                log.warning(
                    "goal %s: starting run %s failed: %s", goal.goal_id, goal.active_run_id, exc
                )
                message = exc.message if isinstance(exc, SvcError) else str(exc)
                self.goal = await launch_failed(self.rt, goal, goal.active_run_id, message)
        self._rearm()

    def _rearm(self) -> None:
        if self._work is not None:
            self._work.superseded = True
            self._work.scope.cancel()
            self._work = None
        goal = self.goal
        if goal.terminal:
            return
        deadline = goal.policy.deadline_at_ms
        armed = deadline is not None and not goal.deadline_passed
        work = _Work(
            trio.CancelScope(
                deadline=(
                    self.rt.clock.to_trio_time(deadline)
                    if deadline is not None and armed
                    else math.inf
                )
            )
        )
        self._work = work
        self.nursery.start_soon(self._live, work, goal)

    async def _live(self, work: _Work, goal: Goal) -> None:
        with work.scope:
            async with trio.open_nursery() as nursery:
                if goal.active_run_id is not None and goal.active_run_id != goal.settled_run_id:
                    nursery.start_soon(self._watch_run, goal.active_run_id)
                nursery.start_soon(self._wait_timers, goal.goal_id)
        if work.scope.cancelled_caught and not work.superseded:
            # The goal's deadline cancelled its live work.
            self._wake(DeadlineReached())

    def _wake(self, message: object) -> None:
        """Tell this actor about its live work (a settled run, a due timer, the deadline).

        The live work runs in the actor's nursery, which is cancelled only at its
        next checkpoint once the actor starts stopping: a watcher that wakes in
        between finds its own mailbox closed. That is not an error (the next
        activation re-arms the work from the store), so it must not escape and
        crash a stopping actor. (A full mailbox still raises: the crash restarts
        the actor, which rehydrates and watches again, where a dropped wake-up
        would leave a settled run unrecorded.)
        """
        try:
            self.ref.tell(message)
        except ActorDead:
            log.debug("goal %s: stopping; %s dropped", self.goal.goal_id, type(message).__name__)

    async def _watch_run(self, run_id: str) -> None:
        # The stream is opened before the status is read, so a settlement committed
        # in between is replayed rather than missed.
        try:
            with EventStream(
                self.rt.events_log, EventFilter(run_id=run_id, type_prefixes=("run.",))
            ) as stream:
                while True:
                    run = await self.rt.workflows.run(run_id)
                    if run is not None and run.terminal:
                        self._wake(RunSettled(run_id))
                        return
                    await stream.receive()
        except (StreamEnded, SvcError):
            # The engine is stopping, or the store failed: the next activation watches again.
            log.info("goal %s: stopped watching run %s", self.goal.goal_id, run_id)
            await trio.sleep_forever()

    async def _wait_timers(self, goal_id: str) -> None:
        try:
            due = [
                t
                for t in (next_due_ms(w) for w in await self.rt.repo.waits(goal_id))
                if t is not None
            ]
        except SvcError:
            log.exception(
                "goal %s: reading waits failed; timers re-arm at the next change", goal_id
            )
            due = []
        if not due:
            await trio.sleep_forever()
        await trio.sleep_until(self.rt.clock.to_trio_time(min(due)))
        self._wake(WaitsDue())


__all__ = ["GoalActor"]
