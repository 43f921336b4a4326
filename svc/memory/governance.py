"""Governed memory access: partitions, run capabilities, and the checks they imply.

A governed request speaks for a run and names a partition (``org_id``,
``workspace_id``, ``project_id``, ``tier``). What the run may do is its
capability: the tiers it may read and write, the tiers it may promote into,
and whether promotion needs a review. A request without a capability gets the
default run capability (read session and project, write session only, no
promotion). A capability must match the request's run and partition, must
not have expired, and must allow the tier.

Governed tiers are ``session``, ``project``, ``team`` and ``curated``; only the
first two (and this engine's ``global``) are stored, so ``team`` and
``curated`` are refused as not storage-backed.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..errors import SvcError, ValidationFailed
from .tiers import TIERS, Tier, as_tier

GOVERNED_TIERS = ("session", "project", "team", "curated")
NOT_STORAGE_BACKED = frozenset({"team", "curated"})
GOVERNED_KINDS = ("solution_capsule", "note", "fact")
CLASSIFICATIONS = ("internal", "restricted")


class MemoryNotFound(SvcError):
    """Memory record not found"""

    code = "MEMORY_NOT_FOUND"
    status = 404


class MemoryForbidden(SvcError):
    """The run's memory capability does not allow this."""

    code = "MEMORY_CAPABILITY_DENIED"
    status = 403


class MemoryCapabilityExpired(SvcError):
    """The memory capability has expired."""

    code = "MEMORY_CAPABILITY_EXPIRED"
    status = 401


class TierNotStorageBacked(SvcError):
    """The tier is not storage-backed."""

    code = "MEMORY_TIER_NOT_STORAGE_BACKED"
    status = 403


class MemoryConflict(SvcError):
    """The memory request conflicts with the record's state."""

    code = "MEMORY_CONFLICT"
    status = 409


@attrs.frozen
class Partition:
    org_id: str
    workspace_id: str
    project_id: str
    tier: str

    @property
    def key(self) -> str:
        return f"{self.org_id}/{self.workspace_id}/{self.project_id}/{self.tier}"


@attrs.frozen
class MemoryPermissions:
    read_tiers: list[str] = attrs.field(factory=lambda: ["session", "project"])
    write_tiers: list[str] = attrs.field(factory=lambda: ["session"])
    promote_targets: list[str] = attrs.field(factory=list)
    require_review_for_promote: bool = False
    allow_auto_use_tiers: list[str] = attrs.field(factory=list)


@attrs.frozen
class Capability:
    """What one run may do with memory. Unset context fields match any request."""

    run_id: str | None = None
    subject: str | None = None
    org_id: str | None = None
    workspace_id: str | None = None
    project_id: str | None = None
    memory: MemoryPermissions = attrs.field(factory=MemoryPermissions)
    expires_at: int | None = None
    """Epoch milliseconds."""


DEFAULT_CAPABILITY = Capability(subject="run")


@attrs.frozen
class Review:
    required: bool = False
    reviewer_id: str | None = None
    approval_id: str | None = None


def storage_tier(tier: str, *, field: str) -> Tier:
    """A governed tier as a storage tier; refuses team/curated and unknown tiers."""
    if tier in NOT_STORAGE_BACKED:
        raise TierNotStorageBacked(
            f"tier `{tier}` is not storage-backed", reason="tier_not_storage_backed", tier=tier
        )
    storage = as_tier(tier)
    if storage is None:
        allowed = ", ".join(sorted({*GOVERNED_TIERS, *TIERS}))
        raise ValidationFailed(f"`{field}` must be one of {allowed}", field=field)
    return storage


def check_classification(value: str) -> None:
    if value not in CLASSIFICATIONS:
        raise ValidationFailed(
            f"`classification` must be one of {', '.join(CLASSIFICATIONS)}",
            field="classification",
        )


def check_context(
    capability: Capability,
    *,
    run_id: str | None,
    org_id: str | None = None,
    workspace_id: str | None = None,
    project_id: str | None = None,
    now_ms: int,
) -> None:
    """The capability speaks for this run and partition, and has not expired."""
    expected = {
        "run_id": run_id,
        "org_id": org_id,
        "workspace_id": workspace_id,
        "project_id": project_id,
    }
    for name, value in expected.items():
        held = getattr(capability, name)
        if held is not None and value is not None and held != value:
            raise MemoryForbidden("capability context mismatch", field=f"capability.{name}")
    if capability.expires_at is not None and capability.expires_at < now_ms:
        raise MemoryCapabilityExpired()


def require_tier(allowed: Sequence[str], tier: str, *, action: str) -> None:
    if tier not in allowed:
        raise MemoryForbidden(
            f"the run's memory capability does not allow {action} tier `{tier}`", tier=tier
        )


def split_scopes(capability: Capability, requested: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(allowed, blocked)`` among the requested read scopes."""
    allowed = [
        t for t in requested if t in capability.memory.read_tiers and t not in NOT_STORAGE_BACKED
    ]
    blocked = [t for t in requested if t not in allowed]
    return allowed, blocked


__all__ = [
    "CLASSIFICATIONS",
    "DEFAULT_CAPABILITY",
    "GOVERNED_KINDS",
    "GOVERNED_TIERS",
    "NOT_STORAGE_BACKED",
    "Capability",
    "MemoryCapabilityExpired",
    "MemoryConflict",
    "MemoryForbidden",
    "MemoryNotFound",
    "MemoryPermissions",
    "Partition",
    "Review",
    "TierNotStorageBacked",
    "check_classification",
    "check_context",
    "require_tier",
    "split_scopes",
    "storage_tier",
]
