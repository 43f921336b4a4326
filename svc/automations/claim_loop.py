"""The loop both run claimers share (routine runs and automation v2 runs).

A claimer on a shared store takes queued runs up to its pool's free capacity,
runs them, releases each claim as its run leaves, renews its claims and follows
other replicas' run events; how a claimed run is run, and what a followed event
means, is each claimer's own (:mod:`.routines.claims`,
:mod:`.v2.claims`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import trio

from ..errors import PersistenceFailed
from .pool import RunPool

log = logging.getLogger("svc.automations")


class _Claimed(Protocol):
    @property
    def run_id(self) -> str: ...


R = TypeVar("R", bound=_Claimed)


class ClaimsStore(Protocol[R]):
    """What a claimer asks of its repository (claims over one queued-run table)."""

    async def claim(
        self, replica_id: str, *, now_ms: int, lease_ms: int, limit: int
    ) -> list[R]: ...

    async def renew(self, replica_id: str, *, expires_at_ms: int) -> int: ...

    async def release(self, replica_id: str, run_id: str) -> None: ...


class ClaimLoop(Generic[R]):
    """Claim, renew and follow until cancelled; subclasses run a claimed run and follow."""

    what = "runs"
    """Named in the log lines of a failed claim or renewal."""

    def __init__(
        self,
        repo: ClaimsStore[R],
        pool: RunPool,
        now_ms: Callable[[], int],
        *,
        replica_id: str,
        lease_ms: int,
    ) -> None:
        self.repo = repo
        self.pool = pool
        self.now_ms = now_ms
        self.replica_id = replica_id
        self.lease_ms = lease_ms
        self.limit = int(pool.limiter.total_tokens)
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
        free = self.limit - len(self.held)
        if free <= 0:
            return
        runs = await self.repo.claim(
            self.replica_id, now_ms=self.now_ms(), lease_ms=self.lease_ms, limit=free
        )
        # Held from here on: no checkpoint before each is in `held` and submitted.
        for run in runs:
            self.held.add(run.run_id)
            self.claimed_total += 1
            self.pool.submit(functools.partial(self._execute, run))

    async def _execute(self, run: R) -> None:
        try:
            await self._run_claimed(run)
        finally:
            # Shielded: a claim left behind would hold the run (and a routine's lane)
            # until it expired.
            with trio.CancelScope(shield=True):
                try:
                    await self.repo.release(self.replica_id, run.run_id)
                except PersistenceFailed:
                    log.warning("could not release the claim of %s", run.run_id, exc_info=True)
            self.held.discard(run.run_id)
            self.wake()  # a slot is free (and a routine's next run is claimable)

    async def _renew(self) -> None:
        while True:
            await trio.sleep(self.lease_ms / 3000)
            if not self.held:
                continue
            try:
                await self.repo.renew(self.replica_id, expires_at_ms=self.now_ms() + self.lease_ms)
            except PersistenceFailed:
                # Retried at the next beat; a claim not renewed in time expires.
                log.warning("renewing %s claims failed", self.what, exc_info=True)

    async def _run_claimed(self, run: R) -> None:
        """Run a run claimed here (the claim is released when this returns)."""
        raise NotImplementedError

    async def _follow(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        raise NotImplementedError


__all__ = ["ClaimLoop", "ClaimsStore"]
