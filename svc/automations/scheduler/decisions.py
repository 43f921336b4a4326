"""The fire journal's records: a tick's decisions as columns, and a stored journal row.

Kept apart from :mod:`.journal` (the materializer) so the journal's repository
can build rows without importing the materializer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import Any

import attrs

Decision = Sequence[Any]
"""``[target_id, slots, next_fire_at_ms | None, missed_reason | None]`` (a list once read back from
the store)."""


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
"""One journal row to write: the kind, its decisions, and each decision as JSON
(:func:`encode_decision`)."""


@attrs.frozen
class JournalRow:
    seq: int
    kind: str
    fired_at_ms: int
    decisions: Decisions


__all__ = [
    "Decision",
    "Decisions",
    "JournalBatch",
    "JournalRow",
    "encode_decision",
]
