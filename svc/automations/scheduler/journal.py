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

import json
import logging
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from itertools import repeat
from typing import Any, Protocol

import attrs
import trio

from ...store import Store, Tx

log = logging.getLogger("svc.automations")

Decision = Sequence[Any]
"""``[target_id, slots, next_fire_at_ms | None, missed_reason | None]`` (a list once read back from the store)."""


_compact = json.JSONEncoder(separators=(",", ":")).encode
"""``json.dumps(..., separators=...)`` without building an encoder per call."""


def encode_decision(decision: Decision) -> str:
    """One decision as compact JSON (the scheduler inlines this for on-time fires)."""
    return _compact(decision)


@attrs.frozen
class Decisions:
    """A row's decisions as columns, so a tick builds them and a target applies them in bulk.

    Position ``i`` is the decision ``[ids[i], [ats[i]], nexts[i], None]`` (one
    slot fired, no misfire), unless ``special`` has ``i``: then it is
    ``[ids[i], *special[i]]`` (the slots fired, the next fire time, the missed
    reason). Iterating yields the decisions as tuples.
    """

    ids: list[str]
    ats: list[int]
    nexts: list[int | None]
    special: dict[int, tuple[Sequence[int], int | None, str | None]] = attrs.field(factory=dict)

    @classmethod
    def of(cls, decisions: Sequence[Decision]) -> Decisions:
        """From decision lists (as read back from the store)."""
        ids: list[str] = []
        ats: list[int] = []
        nexts: list[int | None] = []
        special: dict[int, tuple[Sequence[int], int | None, str | None]] = {}
        for index, (target_id, slots, next_fire, reason) in enumerate(decisions):
            ids.append(target_id)
            nexts.append(next_fire)
            if len(slots) == 1 and reason is None:
                ats.append(slots[0])
            else:
                ats.append(slots[-1] if slots else 0)
                special[index] = (tuple(slots), next_fire, reason)
        return cls(ids, ats, nexts, special)

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[tuple[str, Sequence[int], int | None, str | None]]:
        plain = zip(self.ids, zip(self.ats), self.nexts, repeat(None))
        if not self.special:
            return iter(plain)
        special = self.special
        return ((d[0], *special[i]) if i in special else d for i, d in enumerate(plain))


JournalBatch = tuple[str, Decisions, list[str]]
"""One journal row to write: the kind, its decisions, and each decision as JSON (:func:`encode_decision`)."""


@attrs.frozen
class JournalRow:
    seq: int
    kind: str
    fired_at_ms: int
    decisions: Decisions


class JournalTarget(Protocol):
    """A service whose scheduled fires go through the journal (routines, automations v2)."""

    def journaled(self, row: JournalRow) -> None:
        """Apply ``row`` to memory: fire times, and the fired targets busy until materialized. Synchronous."""

    async def materialize(self, row: JournalRow, *, recovering: bool) -> None:
        """In one transaction: the runs of ``row``, the fire times, and :func:`delete_row`; then admit the runs.

        ``recovering`` (start-up): track the runs but leave announcing and starting
        them to the service's ``start_pending``.
        """


def delete_row(tx: Tx, seq: int) -> None:
    """For a target's materializing transaction: the row is done."""
    tx.execute("DELETE FROM automations_fire_journal WHERE seq = ?", (seq,))


def _insert(tx: Tx, rows: list[tuple[str, int, str]]) -> list[int]:
    return [
        tx.execute(
            "INSERT INTO automations_fire_journal(kind, fired_at_ms, decisions) VALUES (?,?,?) "
            "RETURNING seq",
            row,
        ).scalar()
        for row in rows
    ]


def _stored(tx: Tx) -> list[JournalRow]:
    return [
        JournalRow(seq, kind, fired_at_ms, Decisions.of(json.loads(decisions)))
        for seq, kind, fired_at_ms, decisions in tx.execute(
            "SELECT seq, kind, fired_at_ms, decisions FROM automations_fire_journal ORDER BY seq"
        )
    ]


class FireJournal:
    def __init__(self, db: Store, targets: Mapping[str, JournalTarget]) -> None:
        self.db = db
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
        seqs = await self.db.write(_insert, payload)
        # Store.write is shielded and there is no checkpoint from its return to
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
        rows = await self.db.read(_stored)
        for row in rows:
            target = self.targets.get(row.kind)
            if target is None:
                log.warning(
                    "fire journal row %s has an unknown kind %r; dropped", row.seq, row.kind
                )
                await self.db.write(delete_row, row.seq)
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
    "delete_row",
    "encode_decision",
]
