"""Group commit for run records: many concurrent saves, one transaction.

When a thousand scheduled runs finish in the same instant, each wants to save
its record. :class:`GroupWriter` lets the first caller write everything queued
so far in one transaction while later callers queue behind it; each caller
returns once its own item is committed (or re-raises the batch's error). Items
are written in the order they were queued, so the last save of a record wins.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

import trio

T = TypeVar("T")


class _Batch:
    def __init__(self) -> None:
        self.done = trio.Event()
        self.error: BaseException | None = None


class GroupWriter(Generic[T]):
    def __init__(self, flush: Callable[[Sequence[T]], Awaitable[object]]) -> None:
        """``flush(items)`` writes ``items`` in one shielded transaction (a repository's
        ``Store.write``): a batch that started always lands."""
        self.flush = flush
        self._pending: list[T] = []
        self._batch = _Batch()
        self._writing = False
        self.transactions = 0

    async def put(self, item: T) -> None:
        """Queue ``item`` and return once it is committed."""
        self._pending.append(item)
        batch = self._batch
        if not self._writing:
            self._writing = True
            try:
                while self._pending:
                    items, self._pending = self._pending, []
                    current, self._batch = self._batch, _Batch()
                    try:
                        # flush is one shielded Store.write: a batch that started
                        # always lands, whoever of its callers is cancelled.
                        await self.flush(items)
                        self.transactions += 1
                    except Exception as exc:
                        # Reported to this batch's callers; the items queued meanwhile
                        # still get their own attempt.
                        current.error = exc
                    finally:
                        current.done.set()
            finally:
                self._writing = False
        await batch.done.wait()
        if batch.error is not None:
            raise batch.error


__all__ = ["GroupWriter"]
