"""Memory as a tree of context: resolve a URI, walk the tree, generate layers, distill.

A context URI names a place in the store: ``<scheme>://memory`` (the root),
``.../global``, ``.../project/<project id>``, ``.../session/<session id>``, each
optionally followed by a record id (``.../global/<record id>``). Any scheme is
accepted (clients use their own); ``memory://global/...`` works too.

Node ids: ``root``, ``tier:<tier>``, ``project:<id>``, ``session:<id>``,
``memory:<record id>`` (a bare record id or a URI is accepted where a node id is).

Layers are the three depths a model can be given of a node, computed from the
records, with no model call: ``L0`` an abstract (one sentence), ``L1`` an overview
(the abstracts of its records, or the head of one record), ``L2`` the full text.

Distilling keeps the durable statements of a conversation (not questions, not
acknowledgements) as session-tier ``fact`` records, scrubbed like promotions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import attrs

from ..errors import ValidationFailed
from .records import MemoryRecord, MemoryScope, NewRecord, ScopeClause
from .scrub import scrub_text
from .tiers import TIERS

if TYPE_CHECKING:
    from .service import MemoryService

SCAN_LIMIT = 1000
"""Records read to build one tree level (newest first)."""
ABSTRACT_CHARS = 160
OVERVIEW_ITEMS = 20
DETAIL_CHARS = 20_000
MIN_FACT_CHARS = 12
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_ROLE = re.compile(r"^\s*(user|assistant|system|human|ai|bot)\s*:\s*", re.IGNORECASE)
_ACKS = {"ok", "okay", "noted", "thanks", "thank you", "got it", "sure", "yes", "no"}


@attrs.frozen
class Place:
    """Where a URI or node id points."""

    tier: str | None = None
    scope_id: str | None = None
    record_id: str | None = None

    @property
    def node_id(self) -> str:
        if self.record_id:
            return f"memory:{self.record_id}"
        if self.tier in ("project", "session") and self.scope_id:
            return f"{self.tier}:{self.scope_id}"
        if self.tier:
            return f"tier:{self.tier}"
        return "root"

    def uri(self, scheme: str = "svc") -> str:
        parts = [p for p in (self.tier, self.scope_id, self.record_id) if p]
        return f"{scheme}://memory" + "".join(f"/{p}" for p in parts)


def parse_uri(uri: str, *, field: str = "uri") -> Place:
    split = urlsplit(uri.strip())
    if not split.scheme:
        raise ValidationFailed(f"`{field}` must be a URI such as svc://memory/global", field=field)
    segments = [s for s in (split.netloc, *split.path.split("/")) if s]
    if segments and segments[0] == "memory":
        segments = segments[1:]
    if not segments:
        return Place()
    tier = segments[0]
    if tier not in TIERS:
        raise ValidationFailed(
            f"`{field}`: `{tier}` is not a memory tier ({', '.join(TIERS)})", field=field
        )
    rest = segments[1:]
    if tier == "global":
        if len(rest) > 1:
            raise ValidationFailed(f"`{field}` has too many segments", field=field)
        return Place(tier, None, rest[0] if rest else None)
    if len(rest) > 2:
        raise ValidationFailed(f"`{field}` has too many segments", field=field)
    return Place(tier, rest[0] if rest else None, rest[1] if len(rest) > 1 else None)


def parse_node_id(node_id: str) -> Place:
    node_id = node_id.strip()
    if not node_id:
        raise ValidationFailed("`node_id` must not be empty", field="node_id")
    if "://" in node_id:
        return parse_uri(node_id, field="node_id")
    kind, _, rest = node_id.partition(":")
    if node_id == "root":
        return Place()
    if kind == "tier" and rest in TIERS:
        return Place(rest)
    if kind in ("project", "session") and rest:
        return Place(kind, rest)
    if kind == "memory" and rest:
        return Place(record_id=rest)
    return Place(record_id=node_id)  # a bare record id


def abstract(text: str) -> str:
    first = _SENTENCE.split(" ".join(text.split()), maxsplit=1)[0]
    return first if len(first) <= ABSTRACT_CHARS else first[: ABSTRACT_CHARS - 1] + "…"


def _record_node(record: MemoryRecord) -> dict[str, Any]:
    place = Place(record.tier, _scope_of(record), record.id)
    return {
        "node_id": place.node_id,
        "id": place.node_id,
        "uri": place.uri(),
        "kind": "memory",
        "tier": record.tier,
        "name": abstract(record.content),
        "memory_id": record.id,
        "tags": list(record.tags),
        "created_at_ms": record.created_at_ms,
    }


def _scope_of(record: MemoryRecord) -> str | None:
    if record.tier == "project":
        return record.project_id
    if record.tier == "session":
        return record.session_id
    return None


class MemoryContext:
    def __init__(self, memory: MemoryService) -> None:
        self.memory = memory

    async def _records(self, place: Place) -> list[MemoryRecord]:
        if place.record_id:
            record = await self.memory.get(place.record_id)
            return [record]
        if place.tier is None:
            scope = MemoryScope(tuple(ScopeClause(t) for t in TIERS))
        elif place.tier == "project":
            scope = MemoryScope((ScopeClause("project", project_id=place.scope_id),))
        elif place.tier == "session":
            scope = MemoryScope((ScopeClause("session", session_id=place.scope_id),))
        else:
            scope = MemoryScope((ScopeClause("global"),))
        records, _ = await self.memory.page(scope, limit=SCAN_LIMIT)
        return [r for r in records if not r.demoted]

    async def resolve(self, uri: str) -> dict[str, Any]:
        place = parse_uri(uri)
        records = await self._records(place)
        node = await self._node(place, records, depth=1)
        body: dict[str, Any] = {"ok": True, "uri": uri, "node": node, "node_id": node["node_id"]}
        if place.record_id:
            body["memory"] = records[0].to_wire()
        return body

    async def tree(self, uri: str, *, max_depth: int) -> dict[str, Any]:
        place = parse_uri(uri)
        records = await self._records(place)
        node = await self._node(place, records, depth=max_depth)
        return {"ok": True, "uri": uri, "max_depth": max_depth, **node, "root": node}

    async def _node(
        self, place: Place, records: Sequence[MemoryRecord], *, depth: int
    ) -> dict[str, Any]:
        if place.record_id:
            return _record_node(records[0])
        node: dict[str, Any] = {
            "node_id": place.node_id,
            "id": place.node_id,
            "uri": place.uri(),
            "kind": "root" if place.tier is None else ("tier" if not place.scope_id else "scope"),
            "tier": place.tier,
            "name": place.scope_id or place.tier or "memory",
            "count": len(records),
            "children": [],
        }
        if depth <= 0:
            return node
        children: list[dict[str, Any]] = []
        if place.tier is None:
            for tier in TIERS:
                child = Place(tier)
                of_tier = [r for r in records if r.tier == tier]
                children.append(await self._node(child, of_tier, depth=depth - 1))
        elif place.tier in ("project", "session") and not place.scope_id:
            groups: dict[str, list[MemoryRecord]] = {}
            for record in records:
                scope_id = _scope_of(record)
                if scope_id:
                    groups.setdefault(scope_id, []).append(record)
            for scope_id, group in sorted(groups.items()):
                child = Place(place.tier, scope_id)
                children.append(await self._node(child, group, depth=depth - 1))
        else:
            children = [_record_node(r) for r in records]
        node["children"] = children
        return node

    async def layers(self, node_id: str) -> dict[str, Any]:
        place = parse_node_id(node_id)
        records = await self._records(place)
        texts = [r.content for r in records]
        if place.record_id:
            text = texts[0]
            overview = text if len(text) <= 600 else text[:599] + "…"
            l0 = abstract(text)
        else:
            l0 = f"{len(records)} memories in {place.node_id}" + (
                f"; newest: {abstract(texts[0])}" if texts else ""
            )
            overview = "\n".join(f"- {abstract(t)}" for t in texts[:OVERVIEW_ITEMS])
        detail = "\n\n".join(texts)
        if len(detail) > DETAIL_CHARS:
            detail = detail[: DETAIL_CHARS - 1] + "…"
        return {
            "ok": True,
            "node_id": place.node_id,
            "uri": place.uri(),
            "layers": {"L0": l0, "L1": overview, "L2": detail},
            "abstract": l0,
            "overview": overview,
            "record_count": len(records),
        }

    async def distill(self, session_id: str, conversation: Sequence[str]) -> dict[str, Any]:
        if self.memory.sessions is not None:
            await self.memory.sessions.get(session_id)  # 404 for an unknown session
        existing = {r.content for r in await self._records(Place("session", session_id))}
        stored: list[dict[str, Any]] = []
        skipped = 0
        seen: set[str] = set()
        for line in conversation:
            fact = _ROLE.sub("", line).strip()
            if not _durable(fact) or fact in seen:
                skipped += 1
                continue
            seen.add(fact)
            content, report = scrub_text(fact)
            if report.status == "blocked" or content in existing:
                skipped += 1
                continue
            record = await self.memory.store_record(
                NewRecord(
                    content=content,
                    tier="session",
                    session_id=session_id,
                    project_id=await self.memory.project_of_session(session_id),
                    kind="fact",
                    source_type="distill",
                    tags=("distilled",),
                ),
                action="distill",
            )
            stored.append(record.to_wire())
        return {
            "ok": True,
            "session_id": session_id,
            "distilled": len(stored),
            "stored": len(stored),
            "skipped": skipped,
            "memory_ids": [m["id"] for m in stored],
            "memories": stored,
        }


def _durable(text: str) -> bool:
    """A statement worth keeping: long enough, not a question, not an acknowledgement."""
    if len(text) < MIN_FACT_CHARS or text.endswith("?"):
        return False
    return text.lower().rstrip(".!") not in _ACKS


__all__ = ["MemoryContext", "Place", "parse_node_id", "parse_uri"]
