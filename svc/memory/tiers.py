"""The storage tiers of memory, narrowest first: ``session``, ``project``, ``global``.

Kept apart from the record shapes (:mod:`svc.memory.records`, which re-exports
them) because the memory tools' schemas need the tiers at start-up, when no
record is built (docs/architecture.md, "Start-up budget").
"""

from __future__ import annotations

from typing import Literal, get_args

Tier = Literal["global", "project", "session"]
TIERS: tuple[Tier, ...] = get_args(Tier)

WIDER_TIER: dict[str, Tier] = {"session": "project", "project": "global"}
"""Where a simple promotion moves a record (a session record without a project skips to global)."""

__all__ = ["TIERS", "WIDER_TIER", "Tier"]
