"""The fire journal: a tick's decisions made durable cheaply, turned into runs after the tick.

A scheduler tick does not write run records. For each slice it commits ONE row
per kind to ``automations_fire_journal``: compact JSON decisions
``[[target_id, [slot, ...], next_fire_at_ms, missed_reason_or_null], ...]``.
That commit is the point of no return: the fires are decided, and will be
neither lost nor repeated. Right after it (with no checkpoint in between) each
target applies the row to its memory (:meth:`JournalTarget.journaled`): new
fire times, and the fired targets marked busy until their runs exist.

The materializer, a supervised child of its own, takes the rows of finished
ticks in ``seq`` order and hands each to its target
(:meth:`JournalTarget.materialize`), which in ONE transaction inserts the run
records, persists the fire times and deletes the row, then admits and starts
the runs. It is woken when a tick ends (:meth:`FireJournal.release`), so a
tick's slices have the store to themselves.

Rows left by a crash or a stop are materialized by :meth:`FireJournal.recover`
at the next start, before the scheduler loads its heap, so the persisted
``next_fire_at_ms`` then accounts for every journaled fire.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Protocol

import trio

from .decisions import (
    Decision,
    Decisions,
    JournalBatch,
    JournalRow,
    encode_decision,
)
from .journal_repository import JournalRepository

log = logging.getLogger("svc.automations")


class JournalTarget(Protocol):
    """A service whose scheduled fires go through the journal (routines, automations v2)."""

    def journaled(self, row: JournalRow) -> None:
        """Apply ``row`` to memory: fire times, and the fired targets busy until materialized.
        Synchronous."""

    async def materialize(self, row: JournalRow, *, recovering: bool) -> None:
        """In one transaction: the runs of ``row``, the fire times, and the row's deletion
        (:func:`~.journal_repository.delete_row`); then admit the runs.

        ``recovering`` (start-up): track the runs but leave announcing and starting
        them to the service's ``start_pending``.
        """


class FireJournal:
    def __init__(self, repo: JournalRepository, targets: Mapping[str, JournalTarget]) -> None:
        self.repo = repo
        self.targets = targets
        self._pending: deque[JournalRow] = deque()
        """Committed rows not yet materialized, in seq order."""
        self._released = 0
        """How many rows at the front of :attr:`_pending` belong to finished ticks."""
        self._wake = trio.Event()
        self._progress = trio.Event()
        self.materialized = 0

    @property
    def backlog(self) -> int:
        return len(self._pending)

    # ------------------------------------------------------------------ the tick's side
    async def record(self, batches: Sequence[JournalBatch], fired_at_ms: int) -> None:
        """Commit one row per batch in one transaction, then apply them to the targets."""
        payload = [(kind, fired_at_ms, "[" + ",".join(texts) + "]") for kind, _, texts in batches]
        seqs = await self.repo.insert(payload)
        # The insert is one Store.write, which is shielded, and there is no checkpoint
        # from its return to
        # the end of this loop: a committed row is always applied to memory (and
        # queued for the materializer), even when the tick is being cancelled.
        for seq, (kind, decisions, _) in zip(seqs, batches, strict=True):
            row = JournalRow(seq, kind, fired_at_ms, decisions)
            self.targets[kind].journaled(row)
            self._pending.append(row)

    def release(self) -> None:
        """The tick is over: its rows may be materialized now."""
        if self._released != len(self._pending):
            self._released = len(self._pending)
            self._wake.set()

    # ------------------------------------------------------------------ the materializer
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        while True:
            if not self._released:
                self._wake = trio.Event()
                await self._wake.wait()
                continue
            row = self._pending[0]
            # A failure propagates: the supervisor restarts this child, which retries
            # the same row (it is still first in line, and still in the store).
            await self.targets[row.kind].materialize(row, recovering=False)
            self._pending.popleft()
            self._released -= 1
            self.materialized += 1
            progress, self._progress = self._progress, trio.Event()
            progress.set()

    async def drained(self) -> None:
        """Return once every committed row has been materialized (for tests and tools)."""
        while self._pending:
            await self._progress.wait()

    # ------------------------------------------------------------------ start-up
    async def recover(self) -> int:
        """Materialize the rows a previous process left, in seq order; returns how many."""
        rows = await self.repo.stored()
        for row in rows:
            target = self.targets.get(row.kind)
            if target is None:
                log.warning(
                    "fire journal row %s has an unknown kind %r; dropped", row.seq, row.kind
                )
                await self.repo.delete(row.seq)
                continue
            target.journaled(row)
            await target.materialize(row, recovering=True)
        if rows:
            log.info("materialized %d fire journal rows left by the previous run", len(rows))
        return len(rows)


__all__ = [
    "Decision",
    "Decisions",
    "FireJournal",
    "JournalBatch",
    "JournalRow",
    "JournalTarget",
    "encode_decision",
]
