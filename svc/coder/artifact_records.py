"""Coder run artifacts (reports, summaries, drafts, submissions) and memory candidates."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen(kw_only=True)
class CoderArtifact:
    id: str
    coder_run_id: str
    artifact_type: str
    ts_ms: int
    path: str
    """Where the artifact sits in the run's artifact tree (a logical path)."""
    payload: dict[str, Any]
    step_id: str | None = None
    source_event_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "coder_run_id": self.coder_run_id,
            "ts_ms": self.ts_ms,
            "path": self.path,
            "artifact_type": self.artifact_type,
            "step_id": self.step_id,
            "source_event_id": self.source_event_id,
            "payload": self.payload,
        }


@attrs.frozen(kw_only=True)
class MemoryCandidate:
    candidate_id: str
    coder_run_id: str
    kind: str
    summary: str
    payload: dict[str, Any]
    artifact_id: str
    status: str = "pending"
    """``pending`` until promoted into memory (``promoted``)."""
    memory_id: str | None = None
    promoted_at_ms: int | None = None
    created_at_ms: int = 0
    updated_at_ms: int = 0


__all__ = ["CoderArtifact", "MemoryCandidate"]
