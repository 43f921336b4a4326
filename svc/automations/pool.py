"""Where automation runs execute: a supervised child with a bounded number of runs at once.

Jobs are submitted from anywhere (routes, the scheduler, start-up recovery)
without waiting; the pool's task starts each one at once in its nursery. A job
does its prompt bookkeeping first (announcing its run), then waits for whatever
it needs (a routine's turn, then a slot of :attr:`RunPool.limiter`, which
bounds how many runs execute at once). Jobs submitted before the pool starts
(or while it restarts) wait in the channel. When the engine stops, the pool's
nursery is cancelled and so is every job in it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable

import trio

log = logging.getLogger("svc.automations")

Job = Callable[[], Awaitable[object]]


class RunPool:
    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limiter = trio.CapacityLimiter(limit)
        self._send, self._receive = trio.open_memory_channel[list[Job]](math.inf)
        self.running = 0

    def submit(self, job: Job) -> None:
        """Queue ``job``; it starts at once in the pool's task. Never blocks."""
        self._send.send_nowait([job])

    def submit_many(self, jobs: list[Job]) -> None:
        """Queue many jobs in one hand-over (a scheduler tick creates thousands)."""
        if jobs:
            self._send.send_nowait(jobs)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            task_status.started()
            async for jobs in self._receive:
                for job in jobs:
                    nursery.start_soon(self._guarded, job)

    async def _guarded(self, job: Job) -> None:
        self.running += 1
        try:
            await job()
        except Exception:
            # One run's bug must not stop the others (the job records its own failure).
            log.exception("automation job failed in pool %s", self.name)
        finally:
            self.running -= 1


__all__ = ["Job", "RunPool"]
