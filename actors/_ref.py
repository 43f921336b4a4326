"""ActorRef: the address of one incarnation of an actor; tell/ask/stop go through it.

The per-message path is kept lean on purpose (plain ``__slots__`` objects, no attrs, no
per-request channel): a tell is one ``send_nowait`` on the mailbox, an ask is one
``send_nowait`` plus one park/wake of the asking task.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import trio
from trio.lowlevel import Abort, RaiseCancelT, current_task, reschedule, wait_task_rescheduled

from ._errors import ActorDead, ActorError, AskTimeout, MailboxFull
from ._records import ActorExit, ExitReason

if TYPE_CHECKING:
    from ._watch import Watch

_PENDING = 0
_REPLIED = 1
_FAILED = 2
_DEAD = 3

_CLOSED = (trio.BrokenResourceError, trio.ClosedResourceError)

# Process-wide, so (name, incarnation) identifies an incarnation even across actor systems.
_incarnations = itertools.count(1)


class _Ask:
    """One ask() in flight: the mailbox item and the asker's reply slot.

    The asker parks itself with ``wait_task_rescheduled``; the actor settles the slot and wakes
    it. ``task`` is only set while the asker is actually parked, so a reply that arrives before
    it parks (or after it gave up) never wakes a task that is not waiting.
    """

    __slots__ = ("message", "state", "task", "value")

    def __init__(self, message: object) -> None:
        self.message = message
        self.state = _PENDING
        self.task: trio.lowlevel.Task | None = None
        self.value: object = None

    def _settle(self, state: int, value: object) -> None:
        if self.state != _PENDING:
            return
        self.state = state
        self.value = value
        task = self.task
        if task is not None:
            self.task = None
            reschedule(task)

    def reply(self, value: object) -> None:
        self._settle(_REPLIED, value)

    def fail(self, error: BaseException) -> None:
        self._settle(_FAILED, error)

    def dead(self) -> None:
        self._settle(_DEAD, None)

    def abort(self, _raise_cancel: RaiseCancelT) -> Abort:
        # The asker was cancelled (its timeout or an outer scope) while parked: forget it, so a
        # late reply is dropped instead of waking a task that has moved on.
        self.task = None
        return Abort.SUCCEEDED


class ActorRef:
    """Address of one incarnation of an actor. Cheap, hashable, equal by name + incarnation.

    A ref never comes back to life: when the actor ends, the ref stays dead even if a new actor
    is later started under the same name (that one has a new ref).
    """

    __slots__ = (
        "_alive",
        "_exit",
        "_exit_event",
        "_incarnation",
        "_scope",
        "_send",
        "_stop_reason",
        "_watches",
        "name",
    )

    def __init__(self, name: str, send: trio.MemorySendChannel[object]) -> None:
        self.name = name
        self._incarnation = next(_incarnations)
        self._send = send
        self._alive = True
        # The actor's nursery cancel scope once its task runs; stop() cancels it.
        self._scope: trio.CancelScope | None = None
        self._stop_reason: ExitReason | None = None
        self._exit: ActorExit | None = None
        # Created on demand: an idle actor nobody waits on carries neither.
        self._exit_event: trio.Event | None = None
        self._watches: list[Watch] | None = None

    def __repr__(self) -> str:
        state = "alive" if self._alive else "dead"
        return f"<ActorRef {self.name!r}#{self._incarnation} {state}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ActorRef):
            return NotImplemented
        return self._incarnation == other._incarnation and self.name == other.name

    def __hash__(self) -> int:
        return hash((self.name, self._incarnation))

    @property
    def alive(self) -> bool:
        """False as soon as a stop was requested or the actor ended (it never turns True again)."""
        return self._alive

    @property
    def exit(self) -> ActorExit | None:
        """How this incarnation ended, once its cleanup finished; None while it runs or stops."""
        return self._exit

    def tell(self, message: object) -> None:
        """Queue ``message`` without waiting. Never blocks.

        Raises MailboxFull if the mailbox is at its bound, ActorDead if the actor is stopping or
        gone. Messages from one sender are handled in the order they were told.
        """
        if not self._alive:
            raise ActorDead(self.name)
        try:
            self._send.send_nowait(message)
        except trio.WouldBlock:
            raise MailboxFull(self.name) from None
        except _CLOSED:
            raise ActorDead(self.name) from None

    # A per-call timeout is the API contract here: an ask without a bound would let one stuck
    # actor hang its callers, and the default must apply without callers opening scopes.
    async def ask(self, message: object, *, timeout: float = 30.0) -> object:
        """Send ``message`` and wait for the handler's return value.

        Waits for mailbox space and for the reply within ``timeout`` seconds of trio time, else
        raises AskTimeout (the request may still be handled later; its reply is dropped). If the
        handler raises, that exception is re-raised here boxed as ActorError (``__cause__`` is the
        original) and the actor keeps serving. ActorDead if the actor is gone or stops before
        replying. If the caller is cancelled, the request is abandoned the same way as on timeout.
        """
        if not self._alive:
            await trio.lowlevel.checkpoint()
            raise ActorDead(self.name)
        request = _Ask(message)
        with trio.move_on_after(timeout) as deadline:
            try:
                self._send.send_nowait(request)
            except trio.WouldBlock:
                # Unlike tell(), ask() may wait for room; the same timeout bounds that wait.
                try:
                    await self._send.send(request)
                except _CLOSED:
                    raise ActorDead(self.name) from None
            except _CLOSED:
                raise ActorDead(self.name) from None
            if request.state == _PENDING:
                request.task = current_task()
                await wait_task_rescheduled(request.abort)
        state = request.state
        if state == _REPLIED:
            return request.value
        if state == _FAILED:
            error = request.value
            assert isinstance(error, BaseException)
            raise ActorError(self.name, error) from error
        if deadline.cancelled_caught:
            raise AskTimeout(self.name, timeout)
        raise ActorDead(self.name)

    def stop(self) -> None:
        """Stop this incarnation (reason ``"stopped"``). Synchronous, idempotent.

        From the moment it returns, tell()/ask() raise ActorDead. The actor's current handler and
        its nursery are cancelled, queued asks fail with ActorDead, then ``stopped(None)`` runs
        (shielded, bounded by ``stop_grace``), the name is released and watchers are notified.
        """
        self._request_stop("stopped")

    async def wait_stopped(self) -> ActorExit:
        """Wait until this incarnation has fully ended (cleanup done) and return how it ended."""
        if self._exit is None:
            if self._exit_event is None:
                self._exit_event = trio.Event()
            await self._exit_event.wait()
        else:
            await trio.lowlevel.checkpoint()
        assert self._exit is not None
        return self._exit

    # -- kernel-internal -------------------------------------------------------------------

    def _request_stop(self, reason: ExitReason) -> None:
        if not self._alive:
            return
        # Marked dead synchronously, so tell() fails from the caller's very next line.
        self._alive = False
        self._stop_reason = reason
        if self._scope is not None:
            # The actor's nursery scope: cancels the running handler, the mailbox loop and the
            # actor's background tasks together; cleanup then runs in the actor's task.
            self._scope.cancel()

    def _add_watch(self, watch: Watch) -> None:
        if self._watches is None:
            self._watches = []
        self._watches.append(watch)

    def _finish(self, exit: ActorExit) -> None:
        """Record the exit and wake everybody waiting on it. Called once, by the kernel."""
        self._alive = False
        self._scope = None
        self._exit = exit
        if self._exit_event is not None:
            self._exit_event.set()
        watches, self._watches = self._watches, None
        for watch in watches or ():
            watch._resolve(exit)
