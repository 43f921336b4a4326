"""Drafts, incidents, delivery receipts (posts), intake keys and log-source state.

Drafts, incidents and posts have dozens of optional wire fields (reference §1.9,
§1.10.1, §1.17) that move together from a report to a draft to a payload; each is a
frozen record over its wire document, with properties for the fields the monitor
reasons about. ``evolve`` gives a changed copy; ``None`` removes a field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

import attrs

DRAFT_LISTS = (
    "external_correlation_ids",
    "route_tags",
    "allowed_destination_ids",
    "default_destination_ids",
    "evidence_refs",
)
INCIDENT_LISTS = (*DRAFT_LISTS, "excerpt")


@attrs.frozen
class Document:
    doc: Mapping[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        value = self.doc.get(name)
        return default if value is None else value

    def text(self, name: str) -> str | None:
        value = self.doc.get(name)
        return value if isinstance(value, str) and value else None

    def strings(self, name: str) -> list[str]:
        value = self.doc.get(name)
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def evolve(self, **changes: Any) -> Self:
        doc = dict(self.doc)
        for key, value in changes.items():
            if value is None:
                doc.pop(key, None)
            else:
                doc[key] = value
        return attrs.evolve(self, doc=doc)

    def to_wire(self) -> dict[str, Any]:
        return dict(self.doc)


@attrs.frozen
class Draft(Document):
    @property
    def draft_id(self) -> str:
        return str(self.doc["draft_id"])

    @property
    def fingerprint(self) -> str:
        return str(self.doc["fingerprint"])

    @property
    def repo(self) -> str:
        return str(self.doc.get("repo") or "")

    @property
    def status(self) -> str:
        return str(self.doc["status"])

    @property
    def created_at_ms(self) -> int:
        return int(self.doc["created_at_ms"])

    @property
    def updated_at_ms(self) -> int:
        return int(self.doc.get("updated_at_ms") or self.created_at_ms)

    @property
    def dedup_key(self) -> str:
        return dedup_key(
            self.repo, self.fingerprint, self.text("project_id"), self.text("log_source_id")
        )


@attrs.frozen
class Incident(Document):
    @property
    def incident_id(self) -> str:
        return str(self.doc["incident_id"])

    @property
    def fingerprint(self) -> str:
        return str(self.doc["fingerprint"])

    @property
    def status(self) -> str:
        return str(self.doc["status"])

    @property
    def draft_id(self) -> str | None:
        return self.text("draft_id")

    @property
    def created_at_ms(self) -> int:
        return int(self.doc["created_at_ms"])

    @property
    def updated_at_ms(self) -> int:
        return int(self.doc["updated_at_ms"])

    @property
    def dedup_key(self) -> str:
        return dedup_key(
            self.get("repo", ""),
            self.fingerprint,
            self.text("project_id"),
            self.text("log_source_id"),
        )


@attrs.frozen
class Post(Document):
    """One delivery receipt: a destination's attempt series for one publish."""

    @property
    def post_id(self) -> str:
        return str(self.doc["post_id"])

    @property
    def draft_id(self) -> str:
        return str(self.doc["draft_id"])

    @property
    def status(self) -> str:
        return str(self.doc["status"])

    @property
    def idempotency_key(self) -> str:
        return str(self.doc["idempotency_key"])

    @property
    def created_at_ms(self) -> int:
        return int(self.doc["created_at_ms"])

    @property
    def updated_at_ms(self) -> int:
        return int(self.doc["updated_at_ms"])


def dedup_key(repo: str, fingerprint: str, project_id: str | None, source_id: str | None) -> str:
    """Same repo, fingerprint and source identity: the same failure (reference §1.11)."""
    return "\x1f".join([repo, fingerprint, project_id or "", source_id or ""])


@attrs.frozen
class IntakeKey:
    key_id: str
    project_id: str
    name: str
    key_hash: str
    enabled: bool
    scopes: tuple[str, ...]
    created_at_ms: int
    last_used_at_ms: int | None = None

    def to_wire(self) -> dict[str, Any]:
        """The key as every response shows it: never its hash."""
        return {
            "key_id": self.key_id,
            "project_id": self.project_id,
            "name": self.name,
            "key_hash": "[redacted]",
            "enabled": self.enabled,
            "scopes": list(self.scopes),
            "created_at_ms": self.created_at_ms,
            "last_used_at_ms": self.last_used_at_ms,
        }


@attrs.frozen
class LogSourceState:
    """Where a log source's tail stands (reference §1.19), persisted after every poll."""

    project_id: str
    source_id: str
    path: str = ""
    inode: int | None = None
    offset: int = 0
    partial_line: str | None = None
    partial_line_offset_start: int | None = None
    recent_fingerprints: Mapping[str, int] = attrs.field(factory=dict)
    positioned_at_ms: int | None = None
    updated_at_ms: int = 0
    last_poll_at_ms: int | None = None
    last_candidate_at_ms: int | None = None
    last_submitted_at_ms: int | None = None
    last_error: str | None = None
    consecutive_errors: int = 0
    total_bytes_read: int = 0
    total_candidates: int = 0
    total_submitted: int = 0

    def to_wire(self) -> dict[str, Any]:
        return {
            "project_id": self.project_id,
            "source_id": self.source_id,
            "path": self.path,
            "inode": self.inode,
            "offset": self.offset,
            "file_size": None,
            "positioned_at_ms": self.positioned_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "last_poll_at_ms": self.last_poll_at_ms,
            "last_candidate_at_ms": self.last_candidate_at_ms,
            "last_submitted_at_ms": self.last_submitted_at_ms,
            "last_error": self.last_error,
            "consecutive_errors": self.consecutive_errors,
            "total_bytes_read": self.total_bytes_read,
            "total_candidates": self.total_candidates,
            "total_submitted": self.total_submitted,
            "healthy": self.last_error is None,
        }
