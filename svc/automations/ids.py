"""Cheap unique ids for records created in bulk (a scheduler tick may create thousands).

UUID-shaped (version 4 layout): a random per-process prefix plus a counter, so
they are unique across restarts yet cost no system call per id.
"""

from __future__ import annotations

import itertools
import uuid

_RAND = uuid.uuid4().hex
_PREFIX = (
    f"{_RAND[:8]}-{_RAND[8:12]}-4{_RAND[13:16]}-{'89ab'[int(_RAND[16], 16) % 4]}{_RAND[17:20]}-"
)
_COUNTER = itertools.count(int(_RAND[20:], 16) & 0xFFFFFFFFFF)


def unique_id() -> str:
    return f"{_PREFIX}{next(_COUNTER) & 0xFFFFFFFFFFFF:012x}"


__all__ = ["unique_id"]
