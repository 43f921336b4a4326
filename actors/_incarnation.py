"""The life of one actor incarnation, in one task: start, mailbox loop, cleanup.

An idle actor costs exactly this one task parked in ``receive()`` on its mailbox channel, plus
the actor object, its ref and the channel: no helper tasks, no preallocated buffers.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import trio

from ._actor import Actor
from ._groups import only_cancelled, unwrap_single
from ._records import ActorExit, ExitReason
from ._ref import _Ask
from ._starting import Starting

if TYPE_CHECKING:
    from ._ref import ActorRef
    from ._system import ActorSystem

logger = logging.getLogger("actors")


async def run_incarnation(
    system: ActorSystem,
    ref: ActorRef,
    receive: trio.MemoryReceiveChannel[object],
    actor: Actor,
    task_status: trio.TaskStatus[ActorRef] | Starting = trio.TASK_STATUS_IGNORED,
) -> ActorExit:
    """Run an already registered actor until it stops, then clean up; return its ActorExit.

    ``task_status.started(ref)`` is called once ``started()`` returned. A stop (ref.stop(),
    Actor.stop()) cancels the actor's nursery, which holds the mailbox loop and its tasks. Cleanup
    always runs, also when this task is cancelled from outside: mark dead, fail queued asks with
    ActorDead, close the mailbox, ``stopped()`` (shielded, bounded by ``stop_grace``), release the
    name, notify watchers. Then an outside Cancelled propagates and a crash is re-raised.

    With a ``Starting`` slot (unsupervised spawn) nothing is raised into the system nursery: a
    crash in ``started()`` is handed to the spawner, a later one is logged.
    """
    name = ref.name
    failure: BaseException | None = None
    started = False
    try:
        async with trio.open_nursery() as nursery:
            ref._scope = nursery.cancel_scope
            if not ref._alive:
                # stop() came between registration and now: honour it before any user code runs.
                nursery.cancel_scope.cancel()
            actor.nursery = nursery
            if type(actor).started is not Actor.started:
                await actor.started()
            started = True
            task_status.started(ref)
            # Direct method calls below (no cached bound methods): fewer objects per idle actor,
            # and CPython calls methods without allocating anyway.
            while True:
                item = await receive.receive()
                if type(item) is _Ask:
                    try:
                        result = await actor.receive(item.message)
                    except Exception as error:
                        # The asker owns this failure; the actor itself keeps serving.
                        item.fail(error)
                    except BaseException:
                        # Stopped (Cancelled) or interrupted mid-request: the asker must get
                        # ActorDead instead of waiting out its timeout.
                        item.dead()
                        raise
                    else:
                        item.reply(result)
                else:
                    await actor.receive(item)
    except BaseException as caught:
        failure = caught

    reason: ExitReason
    crash: BaseException | None = None
    if failure is None:
        # Our own nursery scope swallowed the Cancelled of a requested stop.
        reason = ref._stop_reason or "normal"
    elif only_cancelled(failure):
        # Cancelled from outside (e.g. a supervisor or the system shutting down): a stop, not a
        # crash. We still clean up below, then let the Cancelled continue.
        reason = "stopped"
    else:
        reason = "crashed"
        crash = unwrap_single(failure)

    ref._alive = False
    ref._scope = None
    _close_mailbox(receive)
    if started and type(actor).stopped is not Actor.stopped:
        with trio.CancelScope(shield=True):
            # Shielded: cleanup must also run when we got here because an outer scope was
            # cancelled. Bounded by stop_grace so a hung hook cannot hold up shutdown forever.
            with trio.move_on_after(actor.stop_grace) as grace:
                try:
                    await actor.stopped(crash)
                except Exception:
                    logger.exception("actor %r: stopped() raised", name)
            if grace.cancelled_caught:
                logger.warning("actor %r: stopped() exceeded its %ss grace", name, actor.stop_grace)
    exit = ActorExit(name, reason, crash)
    system._retire(ref, exit)

    if isinstance(task_status, Starting):
        # Unsupervised spawn: nothing may escape into the system nursery (it would take every
        # other actor down); the crash goes to the spawner if it still waits, else to the log.
        if crash is not None and isinstance(crash, Exception):
            if started:
                logger.error("actor %r crashed", name, exc_info=crash)
            else:
                task_status.fail(crash)
            return exit
        # No-op once settled; otherwise a stop or the system shutdown beat started(), and the
        # waiting spawner gets the (already dead) ref.
        task_status.started(ref)
    elif not started and failure is None:
        # Stopped before started() returned: the starter still needs an answer; it gets the
        # (already dead) ref rather than trio's "never called started()" error.
        task_status.started(ref)
    if crash is not None:
        raise crash
    if failure is not None:
        raise failure  # cancelled from outside: keep unwinding
    return exit


def _close_mailbox(receive: trio.MemoryReceiveChannel[object]) -> None:
    """Fail every queued ask with ActorDead, drop queued tells, refuse further messages."""
    while True:
        try:
            item = receive.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
            break
        if type(item) is _Ask:
            item.dead()
    # Closing the only receive side wakes asks still waiting for mailbox space with
    # BrokenResourceError (turned into ActorDead by ask()).
    receive.close()
