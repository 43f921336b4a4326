"""The storage tiers of memory, narrowest first: ``session``, ``project``, ``global``.

Kept apart from the record shapes (:mod:`svc.memory.records`, which re-exports
them) because the memory tools' schemas need the tiers at start-up, when no
record is built (docs/architecture.md, "Start-up budget").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from ..errors import ValidationFailed

Tier = Literal["global", "project", "session"]
TIERS: tuple[Tier, ...] = get_args(Tier)

_BY_NAME: dict[str, Tier] = {t: t for t in TIERS}

WIDER_TIER: dict[str, Tier] = {"session": "project", "project": "global"}
"""Where a simple promotion moves a record (a session record without a project skips to global)."""


def as_tier(name: str) -> Tier | None:
    """``name`` as a tier, or None when it names none."""
    return _BY_NAME.get(name)


def check_tier(name: str, *, field: str) -> Tier:
    """``name`` as a tier; a 400 naming ``field`` when it names none."""
    tier = _BY_NAME.get(name)
    if tier is None:
        raise ValidationFailed(f"`{field}` must be one of {', '.join(TIERS)}", field=field)
    return tier


def check_tiers(names: Sequence[str], *, field: str) -> tuple[Tier, ...]:
    """Each name as a tier; the field named is ``tiers[i]`` for a ``tiers`` list."""
    return tuple(
        check_tier(t, field=f"{field}[{i}]" if field == "tiers" else field)
        for i, t in enumerate(names)
    )


__all__ = ["TIERS", "WIDER_TIER", "Tier", "as_tier", "check_tier", "check_tiers"]
