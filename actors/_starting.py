"""The spawner's side of spawn(): a one-shot slot the new actor settles once started() returned.

Cheaper than ``nursery.start()`` (no temporary nursery, no task re-parenting), which matters
when thousands of actors are spawned; and a failure before ``started()`` returned is handed to
the spawner instead of escaping into the system nursery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio
from trio.lowlevel import Abort, RaiseCancelT, current_task, reschedule, wait_task_rescheduled

from ._errors import ActorError

if TYPE_CHECKING:
    from ._ref import ActorRef


class Starting:
    """Settled exactly once: ``started(ref)`` or ``fail(error)``; ``wait()`` returns or raises."""

    __slots__ = ("error", "ref", "settled", "task")

    def __init__(self, ref: ActorRef | None) -> None:
        self.ref = ref
        self.error: BaseException | None = None
        self.settled = False
        self.task: trio.lowlevel.Task | None = None

    def started(self, value: object = None) -> None:
        self._settle(None)

    def fail(self, error: BaseException) -> None:
        self._settle(error)

    def _settle(self, error: BaseException | None) -> None:
        if self.settled:
            return
        self.settled = True
        self.error = error
        task, self.task = self.task, None
        if task is not None:
            reschedule(task)

    async def wait(self) -> ActorRef:
        """Wait until the actor's started() returned; ActorError if it raised.

        If the spawner is cancelled meanwhile, the half-started actor is stopped: nobody would
        hold its ref.
        """
        if self.settled:
            await trio.lowlevel.checkpoint()
        else:
            self.task = current_task()
            await wait_task_rescheduled(self._abort)
        assert self.ref is not None
        if self.error is not None:
            raise ActorError(self.ref.name, self.error) from self.error
        return self.ref

    def _abort(self, _raise_cancel: RaiseCancelT) -> Abort:
        self.task = None
        if self.ref is not None:
            # The spawner gave up while started() ran: nobody will hold this ref, so stop the
            # actor instead of leaving an orphan running.
            self.ref.stop()
        return Abort.SUCCEEDED


DETACHED = Starting(None)
"""For spawns nobody waits on: already settled, so started()/fail() are no-ops (and one shared
object instead of one per actor)."""
DETACHED.settled = True
