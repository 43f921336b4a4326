"""Memory records, the scopes a search or listing covers, and their wire shapes.

Three storage tiers, narrowest first: ``session`` (one chat session), ``project``
(every session of a project) and ``global`` (the whole engine). A record belongs
to exactly one tier; promotion copies it to a wider one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .tiers import TIERS, WIDER_TIER, Tier

DEFAULT_ORG = "local"
DEFAULT_WORKSPACE = "local"
DEFAULT_USER = "default"


@attrs.frozen(kw_only=True)
class MemoryRecord:
    id: str
    tier: Tier
    content: str
    content_hash: str
    created_at_ms: int
    updated_at_ms: int
    org_id: str = DEFAULT_ORG
    workspace_id: str = DEFAULT_WORKSPACE
    project_id: str | None = None
    session_id: str | None = None
    run_id: str | None = None
    user_id: str = DEFAULT_USER
    kind: str = "note"
    """``note``, ``fact``, ``solution_capsule``, ``exchange`` (a run's compact memory),
    ``file`` (an import)."""
    source_type: str = "user"
    """Who wrote it: ``user``, ``agent``, ``exchange``, ``file``, ``promotion``."""
    classification: str = "internal"
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    artifact_refs: tuple[Any, ...] = ()
    provenance: Mapping[str, Any] = attrs.field(factory=dict)
    visibility: str = "shared"
    demoted: bool = False
    source_key: str | None = None
    """``import-<hash>/<path>`` for an imported file's chunks, ``exchange/<run>/<tier>``
    for exchanges."""
    chunk_index: int | None = None

    @property
    def partition_key(self) -> str:
        """``org/workspace/<project or session or ->/tier``: where the record lives."""
        scope = {"session": self.session_id or self.run_id, "project": self.project_id}.get(
            self.tier
        )
        return f"{self.org_id}/{self.workspace_id}/{scope or '-'}/{self.tier}"

    def to_wire(self) -> dict[str, Any]:
        """The item shape of ``GET /memory`` (search hits add ``score``)."""
        return {
            "id": self.id,
            "tier": self.tier,
            "kind": self.kind,
            "source_type": self.source_type,
            "classification": self.classification,
            "content": self.content,
            "text": self.content,
            "tags": list(self.tags),
            "user_id": self.user_id,
            "run_id": self.run_id,
            "session_id": self.session_id,
            "project_id": self.project_id,
            "partition_key": self.partition_key,
            "visibility": self.visibility,
            "demoted": self.demoted,
            "artifact_refs": list(self.artifact_refs),
            "linkage": {"source_key": self.source_key, "chunk_index": self.chunk_index},
            "governance": {
                "org_id": self.org_id,
                "workspace_id": self.workspace_id,
                "classification": self.classification,
            },
            "metadata": dict(self.metadata),
            "provenance": dict(self.provenance),
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
        }


@attrs.frozen
class ScopeClause:
    """One tier of a scope: ``global``; ``project`` of ``project_id``; ``session`` of
    ``session_id``.

    A session clause without a session id but with a ``run_id`` matches the
    session-tier records of that run (governed writes from runs the engine
    does not know). A clause with no id at all covers the whole tier (the
    local operator's view; runs never get one).
    """

    tier: Tier
    project_id: str | None = None
    session_id: str | None = None
    run_id: str | None = None

    @property
    def whole_tier(self) -> bool:
        return self.project_id is None and self.session_id is None and self.run_id is None


@attrs.frozen
class MemoryScope:
    """Which records a search or listing may see.

    ``clauses is None`` means every record (the local operator's unscoped view);
    otherwise a record must match one clause. ``org_id``/``workspace_id`` narrow
    governed requests to their partition.
    """

    clauses: tuple[ScopeClause, ...] | None = None
    org_id: str | None = None
    workspace_id: str | None = None
    classifications: tuple[str, ...] | None = None
    """Only records of these data classes (an enterprise principal's grants); None: any."""

    @classmethod
    def everything(cls) -> MemoryScope:
        return cls(None)

    @classmethod
    def for_context(
        cls,
        *,
        session_id: str | None,
        project_id: str | None,
        tiers: tuple[Tier, ...] = TIERS,
    ) -> MemoryScope:
        """What a run (or a caller speaking for one) sees: its session, its project, global."""
        clauses: list[ScopeClause] = []
        if "session" in tiers and session_id:
            clauses.append(ScopeClause("session", session_id=session_id))
        if "project" in tiers and project_id:
            clauses.append(ScopeClause("project", project_id=project_id))
        if "global" in tiers:
            clauses.append(ScopeClause("global"))
        return cls(tuple(clauses))

    @property
    def tiers(self) -> tuple[Tier, ...]:
        if self.clauses is None:
            return TIERS
        return tuple(t for t in TIERS if any(c.tier == t for c in self.clauses))

    def allows(self, record: MemoryRecord) -> bool:
        if self.org_id is not None and record.org_id != self.org_id:
            return False
        if self.workspace_id is not None and record.workspace_id != self.workspace_id:
            return False
        if self.classifications is not None and record.classification not in self.classifications:
            return False
        if self.clauses is None:
            return True
        for c in self.clauses:
            if c.tier != record.tier:
                continue
            if c.tier == "global" or c.whole_tier:
                return True
            if c.tier == "project" and record.project_id == c.project_id:
                return True
            if c.tier == "session":
                if c.session_id is not None and record.session_id == c.session_id:
                    return True
                if c.session_id is None and record.session_id is None and record.run_id == c.run_id:
                    return True
        return False


@attrs.frozen
class SearchHit:
    record: MemoryRecord
    score: float
    """Relevance in (0, 1), higher is better (see :mod:`svc.memory.query`)."""
    bm25: float
    """The BM25 relevance behind the score (higher is better)."""

    def to_wire(self) -> dict[str, Any]:
        wire = self.record.to_wire()
        wire["score"] = round(self.score, 6)
        wire["bm25"] = round(self.bm25, 6)
        return wire


@attrs.frozen
class NewRecord:
    """What a writer supplies; ids, hashes and times are the store's."""

    content: str
    tier: Tier
    project_id: str | None = None
    session_id: str | None = None
    run_id: str | None = None
    org_id: str = DEFAULT_ORG
    workspace_id: str = DEFAULT_WORKSPACE
    user_id: str = DEFAULT_USER
    kind: str = "note"
    source_type: str = "user"
    classification: str = "internal"
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = attrs.field(factory=dict)
    artifact_refs: tuple[Any, ...] = ()
    provenance: Mapping[str, Any] = attrs.field(factory=dict)
    visibility: str = "shared"
    source_key: str | None = None
    chunk_index: int | None = None


@attrs.frozen
class AuditEntry:
    id: str
    action: str
    created_at_ms: int
    record_id: str | None = None
    run_id: str | None = None
    tier: str | None = None
    actor: str | None = None
    detail: Mapping[str, Any] = attrs.field(factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "audit_id": self.id,
            "action": self.action,
            "memory_id": self.record_id,
            "run_id": self.run_id,
            "tier": self.tier,
            "actor": self.actor,
            "detail": dict(self.detail),
            "created_at_ms": self.created_at_ms,
        }


@attrs.frozen
class Exchange:
    """What one completed run said: the input of its compact exchange records
    (:mod:`svc.memory.exchanges`)."""

    session_id: str
    run_id: str
    project_id: str | None
    user_text: str
    assistant_text: str
    user_message_id: str | None
    assistant_message_id: str | None
    source: str
    agent_id: str | None
    finished_at_ms: int
    channel_tags: tuple[str, ...] = ()
    """A chat channel's run (svc/channels): the channel and conversation tags its one
    global-tier record carries instead of the session-tier one."""


__all__ = [
    "DEFAULT_ORG",
    "DEFAULT_USER",
    "DEFAULT_WORKSPACE",
    "TIERS",
    "WIDER_TIER",
    "AuditEntry",
    "Exchange",
    "MemoryRecord",
    "MemoryScope",
    "NewRecord",
    "ScopeClause",
    "SearchHit",
    "Tier",
]
