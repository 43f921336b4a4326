"""The Actor base class: the hooks a user overrides."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import trio

    from ._ref import ActorRef
    from ._system import ActorSystem


class Actor:
    """Base class for actors. Subclasses override the hooks.

    An actor handles one message at a time, in its own task, so its state needs no locks.
    Long work belongs in ``self.nursery`` (the actor's own nursery) so that it never blocks the
    mailbox; an exception escaping a task in that nursery crashes the actor.

    The system sets ``name``, ``ref``, ``system`` and ``nursery`` before ``started()`` runs.
    """

    mailbox_size: ClassVar[int] = 1024
    """Bound of the mailbox when neither spawn()/run() nor the system give one."""
    stop_grace: ClassVar[float] = 5.0
    """Bound, in seconds, on ``stopped()`` during shutdown (it runs shielded from cancellation)."""

    name: str
    ref: ActorRef
    system: ActorSystem
    nursery: trio.Nursery

    async def started(self) -> None:
        """Run before the first message. Raising here crashes the actor; ``stopped()`` is then
        not called (it only pairs with a ``started()`` that returned). If the actor is stopped
        while this runs, it is cancelled."""

    async def receive(self, message: object) -> object:
        """Handle one message; the return value is the reply to ``ask()`` (ignored for ``tell()``).

        Raising from a told message crashes the actor; raising from an asked one is re-raised at
        the caller as ActorError and the actor keeps serving. Cancelled when the actor is stopped.
        """
        raise NotImplementedError(f"{type(self).__name__} does not handle {message!r}")

    async def stopped(self, error: BaseException | None) -> None:
        """Run once after the mailbox loop ended (``error`` is the crash, else None).

        It runs shielded from cancellation but bounded by ``stop_grace``; the actor's nursery is
        already closed and its mailbox already refuses messages. Exceptions are logged, not raised.
        """

    def stop(self) -> None:
        """Ask to stop this actor (like ``self.ref.stop()``), recorded with reason ``"normal"``.

        Synchronous and idempotent: the mailbox is refused at once, the current handler and the
        nursery are cancelled at their next checkpoint.
        """
        self.ref._request_stop("normal")
