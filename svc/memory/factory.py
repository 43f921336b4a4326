"""New records and audit entries: ids, content hashes, normalized tags, times.

Pure functions, no storage: writers build what they store here, then hand it
to a repository.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

# The record shapes are imported by the first record built: start-up builds none
# (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .records import AuditEntry, MemoryRecord, NewRecord


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalize_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, lower-cased, distinct, in order."""
    seen: dict[str, None] = {}
    for tag in tags:
        cleaned = tag.strip().lower()
        if cleaned:
            seen.setdefault(cleaned, None)
    return tuple(seen)


def build_record(new: NewRecord, *, now_ms: int, record_id: str | None = None) -> MemoryRecord:
    from .records import MemoryRecord

    return MemoryRecord(
        id=record_id or str(uuid.uuid4()),
        tier=new.tier,
        content=new.content,
        content_hash=content_hash(new.content),
        created_at_ms=now_ms,
        updated_at_ms=now_ms,
        org_id=new.org_id,
        workspace_id=new.workspace_id,
        project_id=new.project_id,
        session_id=new.session_id,
        run_id=new.run_id,
        user_id=new.user_id,
        kind=new.kind,
        source_type=new.source_type,
        classification=new.classification,
        tags=normalize_tags(new.tags),
        metadata=dict(new.metadata),
        artifact_refs=tuple(new.artifact_refs),
        provenance=dict(new.provenance),
        visibility=new.visibility,
        source_key=new.source_key,
        chunk_index=new.chunk_index,
    )


def new_audit(
    action: str,
    *,
    now_ms: int,
    record: MemoryRecord | None = None,
    run_id: str | None = None,
    actor: str | None = None,
    detail: Mapping[str, Any] | None = None,
) -> AuditEntry:
    from .records import AuditEntry

    return AuditEntry(
        id=str(uuid.uuid4()),
        action=action,
        created_at_ms=now_ms,
        record_id=record.id if record else None,
        run_id=run_id if run_id is not None else (record.run_id if record else None),
        tier=record.tier if record else None,
        actor=actor,
        detail=dict(detail or {}),
    )


__all__ = ["build_record", "content_hash", "new_audit", "normalize_tags"]
