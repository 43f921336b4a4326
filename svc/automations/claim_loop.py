"""The loop both run claimers share (routine runs and automation v2 runs).

A claimer on a shared store takes queued runs up to its pool's free capacity,
renews its claims and follows other replicas' run events; what a claim is, and
what a followed event means, is each claimer's own (:mod:`.routines.claims`,
:mod:`.v2.claims`).
"""

from __future__ import annotations

import logging

import trio

from ..errors import PersistenceFailed

log = logging.getLogger("svc.automations")


class ClaimLoop:
    """Claim, renew and follow until cancelled; subclasses say how."""

    what = "runs"
    """Named in the log line of a failed claim."""

    def __init__(self, *, replica_id: str, lease_ms: int, limit: int) -> None:
        self.replica_id = replica_id
        self.lease_ms = lease_ms
        self.limit = limit
        self.held: set[str] = set()
        """Runs claimed here and not yet released."""
        self.claimed_total = 0
        self._wake = trio.Event()

    def wake(self) -> None:
        """Look for claimable runs now (never blocks)."""
        self._wake.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Claim, renew and follow until cancelled (a supervised child)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._renew)
            await nursery.start(self._follow)
            task_status.started()
            while True:
                try:
                    await self._claim()
                except PersistenceFailed:
                    # The store is away for a moment: the next wake or tick tries again.
                    log.warning("claiming %s failed; retried", self.what, exc_info=True)
                # Expired claims of a dead replica show no event: look every third of a lease.
                with trio.move_on_after(self.lease_ms / 3000):
                    await self._wake.wait()
                self._wake = trio.Event()

    async def _claim(self) -> None:
        raise NotImplementedError

    async def _renew(self) -> None:
        raise NotImplementedError

    async def _follow(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        raise NotImplementedError


__all__ = ["ClaimLoop"]
