"""The request bodies memory accepts, in both shapes clients send.

Every operation has a *governed* body (a run speaking for a partition, with an
optional capability; see :mod:`svc.memory.governance`) and a *simple* body
(``{text, tags, session_id, project_id, ...}``). A body with a ``partition``
is governed; anything else is simple. camelCase and snake_case spellings are
both accepted, and bad input is a 400 naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..convert import aliases, structure
from ..errors import ValidationFailed
from .governance import Capability, Partition, Review

MAX_CONTENT_CHARS = 200_000
MAX_TAGS = 32
DEFAULT_SEARCH_LIMIT = 8
MAX_SEARCH_LIMIT = 100


@attrs.frozen
class PutRequest:
    """Simple put: the tier follows from the ids given unless ``tier`` says."""

    text: str | None = aliases("content", default=None)
    tags: list[str] = attrs.field(factory=list)
    tier: str | None = None
    session_id: str | None = aliases("sessionID", default=None)
    project_id: str | None = aliases("projectID", default=None)
    run_id: str | None = aliases("runID", default=None)
    kind: str | None = None
    source: str | None = None
    """Who wrote it (``user``, ``agent`` ...); stored as the record's source type."""
    classification: str | None = None
    metadata: dict[str, Any] = attrs.field(factory=dict)
    artifact_refs: list[Any] = attrs.field(factory=list)
    private: bool = False
    capability: Capability | None = None


@attrs.frozen
class GovernedPutRequest:
    run_id: str
    partition: Partition
    kind: str
    content: str
    classification: str
    artifact_refs: list[Any] = attrs.field(factory=list)
    metadata: dict[str, Any] = attrs.field(factory=dict)
    private: bool = False
    capability: Capability | None = None
    tags: list[str] = attrs.field(factory=list)
    session_id: str | None = aliases("sessionID", default=None)


@attrs.frozen
class SearchRequest:
    query: str | None = aliases("q", "text", default=None)
    limit: int | None = None
    tags: list[str] = attrs.field(factory=list)
    session_id: str | None = aliases("sessionID", default=None)
    project_id: str | None = aliases("projectID", default=None)
    run_id: str | None = aliases("runID", default=None)
    tier: str | None = None
    tiers: list[str] | None = None
    kinds: list[str] | None = None
    capability: Capability | None = None


@attrs.frozen
class GovernedSearchRequest:
    run_id: str
    query: str
    partition: Partition
    read_scopes: list[str] | None = None
    limit: int | None = None
    capability: Capability | None = None
    retrieval_gateway: Any = None
    workflow_phase: str | None = None
    tags: list[str] = attrs.field(factory=list)
    session_id: str | None = aliases("sessionID", default=None)


@attrs.frozen
class PromoteRequest:
    """Simple promote: copy a record one tier wider (session → project → global)."""

    id: str = aliases("memory_id", "memoryID", "source_memory_id")
    to_tier: str | None = None
    reason: str | None = None
    project_id: str | None = aliases("projectID", default=None)
    run_id: str | None = aliases("runID", default=None)
    capability: Capability | None = None


@attrs.frozen
class GovernedPromoteRequest:
    run_id: str
    source_memory_id: str
    to_tier: str
    partition: Partition
    from_tier: str | None = None
    reason: str | None = None
    review: Review = attrs.field(factory=Review)
    capability: Capability | None = None


@attrs.frozen
class DemoteRequest:
    id: str = aliases("memory_id", "memoryID")
    run_id: str | None = aliases("runID", default=None)
    reason: str | None = None


@attrs.frozen
class ImportSource:
    kind: str = "path"
    path: str | None = None


@attrs.frozen
class ImportBody:
    """``POST /memory/import``: ``{source: {kind: path, path}, format, tier, ...}``
    or ``{path, ...}``."""

    source: ImportSource | None = None
    path: str | None = None
    format: str = "directory"
    tier: str | None = None
    project_id: str | None = aliases("projectID", default=None)
    session_id: str | None = aliases("sessionID", default=None)
    source_binding_id: str | None = None
    sync_deletes: bool = False


def _governed(data: Any) -> bool:
    return isinstance(data, Mapping) and "partition" in data


def parse_put(data: Any) -> PutRequest | GovernedPutRequest:
    if _governed(data):
        return structure(GovernedPutRequest, data)
    return structure(PutRequest, data)


def parse_search(data: Any) -> SearchRequest | GovernedSearchRequest:
    if _governed(data):
        return structure(GovernedSearchRequest, data)
    return structure(SearchRequest, data)


def parse_promote(data: Any) -> PromoteRequest | GovernedPromoteRequest:
    if _governed(data):
        return structure(GovernedPromoteRequest, data)
    return structure(PromoteRequest, data)


def parse_demote(data: Any) -> DemoteRequest:
    return structure(DemoteRequest, data)


def parse_import(data: Any) -> ImportBody:
    body = structure(ImportBody, data)
    if body.source is not None and body.source.kind != "path":
        raise ValidationFailed("source.kind must be `path`", field="source.kind")
    return body


def check_content(text: str | None, *, field: str) -> str:
    if text is None or not text.strip():
        raise ValidationFailed(f"`{field}` is required and must not be empty", field=field)
    if len(text) > MAX_CONTENT_CHARS:
        raise ValidationFailed(
            f"`{field}` is longer than {MAX_CONTENT_CHARS} characters", field=field
        )
    return text.strip()


def check_tags(tags: list[str], *, field: str = "tags") -> tuple[str, ...]:
    if len(tags) > MAX_TAGS:
        raise ValidationFailed(f"at most {MAX_TAGS} tags are allowed", field=field)
    for index, tag in enumerate(tags):
        if len(tag) > 64:
            raise ValidationFailed(
                f"`{field}[{index}]` is longer than 64 characters", field=f"{field}[{index}]"
            )
    return tuple(tags)


def search_limit(limit: int | None) -> int:
    """The requested limit clamped to 1..100 (default 8)."""
    if limit is None:
        return DEFAULT_SEARCH_LIMIT
    return max(1, min(limit, MAX_SEARCH_LIMIT))


__all__ = [
    "DEFAULT_SEARCH_LIMIT",
    "MAX_CONTENT_CHARS",
    "MAX_SEARCH_LIMIT",
    "DemoteRequest",
    "GovernedPromoteRequest",
    "GovernedPutRequest",
    "GovernedSearchRequest",
    "ImportBody",
    "ImportSource",
    "PromoteRequest",
    "PutRequest",
    "SearchRequest",
    "check_content",
    "check_tags",
    "parse_demote",
    "parse_import",
    "parse_promote",
    "parse_put",
    "parse_search",
    "search_limit",
]
