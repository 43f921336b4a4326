"""The memory facade: what routes, tools and other domains call.

It resolves who a request speaks for (a session's project, a run's session),
enforces capabilities on governed requests, writes through the store with an
audit entry in the same transaction, and announces changes as events on the
``memory`` topic. Memory events never carry session or run ids in the keys the
event log routes by, so they do not appear in a run's own event stream.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..clock import Clock
from ..errors import ValidationFailed
from ..events import EventLog
from .store import MemoryStore, audit_sync, build_record, new_audit, normalize_tags
from .tiers import TIERS, WIDER_TIER, Tier

# The record shapes, the governance checks, the request shapes, the scrubber and the file importer
# are imported on first use: start-up builds the service but serves no request
# (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .importer import Importer, ImportProgress, ImportRequest, ImportSummary
    from .records import MemoryRecord, MemoryScope, NewRecord, SearchHit
    from .requests import (
        DemoteRequest,
        GovernedPromoteRequest,
        GovernedPutRequest,
        GovernedSearchRequest,
        ImportBody,
        PromoteRequest,
        PutRequest,
        SearchRequest,
    )

log = logging.getLogger("svc.memory")

TOPIC = "memory"

_TIER_RANK = {"session": 0, "project": 1, "global": 2}

# Bulk-extraction phrasing a retrieval gateway refuses ("dump everything").
_BULK = re.compile(
    r"(?i)\b(dump|export\s+all|list\s+all|show\s+all|everything\s+you\s+(know|remember))\b"
)


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        *,
        events: EventLog,
        clock: Clock,
        sessions: Any = None,
        workspace: Callable[[], Path] | None = None,
    ) -> None:
        self.store = store
        self.events = events
        self.clock = clock
        self.sessions = sessions
        """The engine's SessionService (resolves a run's session and a session's project)."""
        self._workspace = workspace or Path.cwd
        self._importer: Importer | None = None
        self.exchanges: Any = None
        """The :class:`~svc.memory.exchanges.ExchangeRecorder`, when the component runs one."""

    @property
    def importer(self) -> Importer:
        """The file importer, built by the first import (imported on first use, like the requests)."""
        if self._importer is None:
            from .importer import Importer

            self._importer = Importer(self.store, self.clock.now_ms)
        return self._importer

    # ------------------------------------------------------------------ resolution
    async def session_of_run(self, run_id: str | None) -> str | None:
        if not run_id or self.sessions is None:
            return None
        run = await self.sessions.repo.get_run(run_id)
        return run.session_id if run is not None else None

    async def project_of_session(self, session_id: str | None) -> str | None:
        if not session_id or self.sessions is None:
            return None
        session = await self.sessions.repo.get(session_id)
        return session.project_id if session is not None else None

    async def context_scope(
        self,
        *,
        session_id: str | None,
        project_id: str | None,
        tiers: Sequence[str] | None = None,
        field: str = "tiers",
    ) -> MemoryScope:
        """What a run in ``session_id`` sees: its session, its (or the given) project, global."""
        from .records import MemoryScope

        project_id = project_id or await self.project_of_session(session_id)
        wanted = _check_tiers(tiers, field=field) if tiers else TIERS
        return MemoryScope.for_context(session_id=session_id, project_id=project_id, tiers=wanted)

    async def operator_scope(
        self,
        *,
        session_id: str | None,
        project_id: str | None,
        tiers: Sequence[str] | None = None,
        field: str = "tiers",
    ) -> MemoryScope:
        """A caller naming a session or project sees that context; one naming neither sees every record."""
        from .records import MemoryScope, ScopeClause

        if session_id or project_id:
            return await self.context_scope(
                session_id=session_id, project_id=project_id, tiers=tiers, field=field
            )
        wanted = _check_tiers(tiers, field=field) if tiers else TIERS
        return MemoryScope(tuple(ScopeClause(t) for t in wanted))

    # ------------------------------------------------------------------ put
    async def put(self, request: PutRequest | GovernedPutRequest) -> dict[str, Any]:
        from .requests import GovernedPutRequest

        if isinstance(request, GovernedPutRequest):
            new = await self._governed_new(request)
        else:
            new = await self._simple_new(request)
        record = await self.write(new, action="put")
        partition_key = (
            request.partition.key
            if isinstance(request, GovernedPutRequest)
            else record.partition_key
        )
        return {
            "ok": True,
            "id": record.id,
            "stored": True,
            "tier": record.tier,
            "partition_key": partition_key,
            "audit_id": record.provenance.get("audit_id"),
            "memory": record.to_wire(),
        }

    async def write(
        self, new: NewRecord, *, action: str = "put", actor: str | None = None
    ) -> MemoryRecord:
        """Store one record with its audit entry; announces ``memory.updated``."""
        now = self.clock.now_ms()
        audit = new_audit(action, now_ms=now, run_id=new.run_id, actor=actor or new.source_type)
        record = build_record(
            attrs.evolve(new, provenance={**new.provenance, "audit_id": audit.id}), now_ms=now
        )
        audit = attrs.evolve(audit, record_id=record.id, tier=record.tier)
        await self.store.insert([record], audit=[audit])
        self._announce("memory.updated", record, action=action)
        return record

    async def _governed_new(self, request: GovernedPutRequest) -> NewRecord:
        from .governance import (
            DEFAULT_CAPABILITY,
            GOVERNED_KINDS,
            check_context,
            require_tier,
            storage_tier,
        )
        from .records import NewRecord
        from .requests import check_content, check_tags

        partition = request.partition
        tier = storage_tier(partition.tier, field="partition.tier")
        if request.kind not in GOVERNED_KINDS:
            raise ValidationFailed(
                f"`kind` must be one of {', '.join(GOVERNED_KINDS)}", field="kind"
            )
        _check_classification(request.classification)
        capability = request.capability or DEFAULT_CAPABILITY
        check_context(
            capability,
            run_id=request.run_id,
            org_id=partition.org_id,
            workspace_id=partition.workspace_id,
            project_id=partition.project_id,
            now_ms=self.clock.now_ms(),
        )
        require_tier(capability.memory.write_tiers, partition.tier, action="writing to")
        content = check_content(request.content, field="content")
        session_id = None
        if tier == "session":
            session_id = request.session_id or await self.session_of_run(request.run_id)
        return NewRecord(
            content=content,
            tier=tier,
            project_id=partition.project_id if tier != "global" else None,  # type: ignore[arg-type]
            session_id=session_id,
            run_id=request.run_id,
            org_id=partition.org_id,
            workspace_id=partition.workspace_id,
            kind=request.kind,
            source_type="run",
            classification=request.classification,
            tags=check_tags(request.tags),
            metadata=request.metadata,
            artifact_refs=tuple(request.artifact_refs),
            visibility="private" if request.private else "shared",
            provenance={"capability_subject": capability.subject},
        )

    async def _simple_new(self, request: PutRequest) -> NewRecord:
        from .governance import check_context, require_tier
        from .records import NewRecord
        from .requests import check_content, check_tags

        content = check_content(request.text, field="text")
        session_id = request.session_id or await self.session_of_run(request.run_id)
        project_id = request.project_id or await self.project_of_session(session_id)
        if request.tier is not None:
            tier = _check_tier(request.tier, field="tier")
        else:
            tier = "session" if session_id else "project" if project_id else "global"
        if tier == "session" and not session_id:
            raise ValidationFailed("tier=session requires session_id", field="session_id")
        if tier == "project" and not project_id:
            raise ValidationFailed("tier=project requires project_id", field="project_id")
        classification = request.classification or "internal"
        _check_classification(classification)
        if request.capability is not None:
            check_context(
                request.capability,
                run_id=request.run_id,
                project_id=project_id,
                now_ms=self.clock.now_ms(),
            )
            require_tier(request.capability.memory.write_tiers, tier, action="writing to")
        kind = (request.kind or "note").strip()
        if not kind or len(kind) > 64:
            raise ValidationFailed("`kind` must be 1 to 64 characters", field="kind")
        return NewRecord(
            content=content,
            tier=tier,
            project_id=project_id if tier != "global" else None,
            session_id=session_id if tier == "session" else None,
            run_id=request.run_id,
            kind=kind,
            source_type=(request.source or "user").strip() or "user",
            classification=classification,
            tags=check_tags(request.tags),
            metadata=request.metadata,
            artifact_refs=tuple(request.artifact_refs),
            visibility="private" if request.private else "shared",
        )

    # ------------------------------------------------------------------ search
    async def search(self, request: SearchRequest | GovernedSearchRequest) -> dict[str, Any]:
        from .governance import check_context, split_scopes
        from .requests import GovernedSearchRequest, check_content, check_tags, search_limit

        if isinstance(request, GovernedSearchRequest):
            return await self._governed_search(request)
        query = check_content(request.query, field="query")
        tiers: list[str] | None = request.tiers or ([request.tier] if request.tier else None)
        checked = (
            _check_tiers(tiers, field="tiers" if request.tiers else "tier") if tiers else TIERS
        )
        blocked: list[str] = []
        if request.capability is not None:
            check_context(
                request.capability,
                run_id=request.run_id,
                project_id=request.project_id,
                now_ms=self.clock.now_ms(),
            )
            allowed, blocked = split_scopes(request.capability, checked)
            checked = tuple(t for t in checked if t in allowed)
        session_id = request.session_id or await self.session_of_run(request.run_id)
        scope = await self.operator_scope(
            session_id=session_id, project_id=request.project_id, tiers=checked
        )
        hits = await self.find(
            query,
            scope,
            tags=check_tags(request.tags),
            kinds=request.kinds or (),
            limit=search_limit(request.limit),
        )
        return _search_body(hits, scope.tiers, blocked, audit_id=None, query=query)

    async def find(
        self,
        query: str,
        scope: MemoryScope,
        *,
        tags: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 8,
    ) -> list[SearchHit]:
        """Ranked hits for ``query`` within ``scope`` (what tools and other domains call)."""
        return await self.store.search(query, scope, tags=tags, kinds=kinds, limit=limit)

    async def _governed_search(self, request: GovernedSearchRequest) -> dict[str, Any]:
        from .governance import DEFAULT_CAPABILITY, GOVERNED_TIERS, check_context, split_scopes
        from .records import MemoryScope, ScopeClause
        from .requests import check_content, check_tags, search_limit

        partition = request.partition
        capability = request.capability or DEFAULT_CAPABILITY
        check_context(
            capability,
            run_id=request.run_id,
            org_id=partition.org_id,
            workspace_id=partition.workspace_id,
            project_id=partition.project_id,
            now_ms=self.clock.now_ms(),
        )
        query = check_content(request.query, field="query")
        requested = (
            list(request.read_scopes)
            if request.read_scopes is not None
            else list(capability.memory.read_tiers)
        )
        for index, scope_name in enumerate(requested):
            if scope_name not in GOVERNED_TIERS and scope_name not in TIERS:
                raise ValidationFailed(
                    f"unknown read scope `{scope_name}`", field=f"read_scopes[{index}]"
                )
        now = self.clock.now_ms()
        if request.retrieval_gateway is not None and _BULK.search(query):
            audit = new_audit(
                "search_blocked",
                now_ms=now,
                run_id=request.run_id,
                actor="retrieval_gateway",
                detail={"reason": "bulk_retrieval", "scopes": requested},
            )
            await self.store.db.write(audit_sync, audit)
            body = _search_body([], (), requested, audit_id=audit.id, query=query)
            body["blocked_reason"] = "bulk_retrieval"
            return body
        allowed, blocked = split_scopes(capability, requested)
        clauses: list[ScopeClause] = []
        for tier in TIERS:
            if tier not in allowed:
                continue
            if tier == "session":
                session_id = request.session_id or await self.session_of_run(request.run_id)
                clauses.append(ScopeClause("session", session_id=session_id, run_id=request.run_id))
            elif tier == "project":
                clauses.append(ScopeClause("project", project_id=partition.project_id))
            else:
                clauses.append(ScopeClause("global"))
        scope = MemoryScope(
            tuple(clauses), org_id=partition.org_id, workspace_id=partition.workspace_id
        )
        hits = (
            await self.find(
                query, scope, tags=check_tags(request.tags), limit=search_limit(request.limit)
            )
            if clauses
            else []
        )
        audit = new_audit(
            "search",
            now_ms=now,
            run_id=request.run_id,
            actor=capability.subject,
            detail={
                "scopes_used": list(scope.tiers),
                "blocked_scopes": blocked,
                "hits": len(hits),
                "workflow_phase": request.workflow_phase,
            },
        )
        await self.store.db.write(audit_sync, audit)
        return _search_body(hits, scope.tiers, blocked, audit_id=audit.id, query=query)

    # ------------------------------------------------------------------ promote / demote
    async def promote(self, request: PromoteRequest | GovernedPromoteRequest) -> dict[str, Any]:
        from .governance import (
            DEFAULT_CAPABILITY,
            MemoryConflict,
            MemoryForbidden,
            MemoryNotFound,
            check_context,
            require_tier,
            storage_tier,
        )
        from .records import NewRecord
        from .requests import GovernedPromoteRequest
        from .scrub import ScrubReport, scrub_text

        now = self.clock.now_ms()
        if isinstance(request, GovernedPromoteRequest):
            partition = request.partition
            capability = request.capability or DEFAULT_CAPABILITY
            check_context(
                capability,
                run_id=request.run_id,
                org_id=partition.org_id,
                workspace_id=partition.workspace_id,
                project_id=partition.project_id,
                now_ms=now,
            )
            to_tier = storage_tier(request.to_tier, field="to_tier")
            require_tier(
                capability.memory.promote_targets, request.to_tier, action="promoting into"
            )
            review_needed = request.review.required or capability.memory.require_review_for_promote
            if review_needed and not (request.review.reviewer_id or request.review.approval_id):
                raise MemoryForbidden(
                    "promotion requires a review (review.reviewer_id or review.approval_id)",
                    field="review",
                )
            record = await self._require(request.source_memory_id, field="source_memory_id")
            if (
                record.org_id != partition.org_id
                or record.workspace_id != partition.workspace_id
                or (record.project_id is not None and record.project_id != partition.project_id)
            ):
                raise MemoryNotFound(memory_id=request.source_memory_id)
            if request.from_tier is not None and request.from_tier != record.tier:
                raise MemoryConflict(
                    f"the record is in tier `{record.tier}`, not `{request.from_tier}`",
                    field="from_tier",
                )
            project_id = partition.project_id
            run_id, reason = request.run_id, request.reason
            review = attrs.asdict(request.review)
        else:
            record = await self._require(request.id, field="id")
            project_id = request.project_id or record.project_id
            if request.to_tier is not None:
                to_tier = _check_tier(request.to_tier, field="to_tier")
            else:
                wider = WIDER_TIER.get(record.tier)
                if wider is None:
                    raise MemoryConflict("the record is already in the global tier", field="id")
                to_tier = "global" if wider == "project" and not project_id else wider
            if request.capability is not None:
                check_context(
                    request.capability, run_id=request.run_id, project_id=project_id, now_ms=now
                )
                require_tier(
                    request.capability.memory.promote_targets, to_tier, action="promoting into"
                )
            run_id, reason, review = request.run_id, request.reason, None
        if _TIER_RANK[to_tier] <= _TIER_RANK[record.tier]:
            raise MemoryConflict(
                f"cannot promote a `{record.tier}` record to `{to_tier}`", field="to_tier"
            )
        if to_tier == "project" and not project_id:
            raise ValidationFailed(
                "promoting to the project tier requires project_id", field="project_id"
            )
        if record.classification == "restricted":
            report = ScrubReport("blocked", 0, "restricted classification")
            content = record.content
        else:
            content, report = scrub_text(record.content)
        body: dict[str, Any] = {
            "promoted": False,
            "to_tier": to_tier,
            "scrub_report": report.to_wire(),
        }
        if report.status == "blocked":
            audit = new_audit(
                "promote_blocked",
                now_ms=now,
                record=record,
                run_id=run_id,
                detail={"to_tier": to_tier, "reason": report.block_reason},
            )
            await self.store.db.write(audit_sync, audit)
            body["audit_id"] = audit.id
            return body
        promoted = await self.write(
            NewRecord(
                content=content,
                tier=to_tier,
                project_id=project_id if to_tier == "project" else None,
                run_id=run_id or record.run_id,
                org_id=record.org_id,
                workspace_id=record.workspace_id,
                user_id=record.user_id,
                kind=record.kind,
                source_type="promotion",
                classification=record.classification,
                tags=record.tags,
                metadata=record.metadata,
                artifact_refs=record.artifact_refs,
                provenance={
                    "promoted_from": record.id,
                    "from_tier": record.tier,
                    "reason": reason,
                    "review": review,
                    "scrub": report.to_wire(),
                },
            ),
            action="promote",
            actor="promotion",
        )
        body.update(
            promoted=True,
            new_memory_id=promoted.id,
            audit_id=promoted.provenance.get("audit_id"),
            memory=promoted.to_wire(),
        )
        return body

    async def demote(self, request: DemoteRequest) -> dict[str, Any]:
        from .governance import MemoryNotFound

        now = self.clock.now_ms()
        audit = new_audit(
            "demote", now_ms=now, run_id=request.run_id, detail={"reason": request.reason}
        )
        record = await self.store.set_demoted(
            request.id, demoted=True, now_ms=now, audit=attrs.evolve(audit, record_id=request.id)
        )
        if record is None:
            raise MemoryNotFound(memory_id=request.id)
        self._announce("memory.updated", record, action="demote", visibility="private")
        return {"ok": True, "id": record.id, "audit_id": audit.id}

    # ------------------------------------------------------------------ read / delete
    async def get(self, record_id: str, scope: MemoryScope | None = None) -> MemoryRecord:
        from .governance import MemoryNotFound

        record = await self.store.get(record_id)
        if record is None or (scope is not None and not scope.allows(record)):
            raise MemoryNotFound(memory_id=record_id)
        return record

    async def _require(self, record_id: str, *, field: str) -> MemoryRecord:
        from .governance import MemoryNotFound

        record = await self.store.get(record_id)
        if record is None:
            raise MemoryNotFound(memory_id=record_id, field=field)
        return record

    async def list(
        self,
        scope: MemoryScope,
        *,
        text: str | None = None,
        tags: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 100,
        offset: int = 0,
    ) -> tuple[list[MemoryRecord], int]:
        return await self.store.list(
            scope, text=text, tags=tags, kinds=kinds, limit=limit, offset=offset
        )

    async def delete(
        self,
        record_id: str,
        scope: MemoryScope | None = None,
        *,
        project_id: str | None = None,
        tags: Sequence[str] = (),
        actor: str | None = None,
    ) -> dict[str, Any]:
        """Delete a record the scope can see, in ``project_id`` and carrying ``tags`` when given (404 otherwise)."""
        from .governance import MemoryNotFound

        record = await self.get(record_id, scope)
        wanted = normalize_tags(tags)
        if (project_id and record.project_id != project_id) or not set(wanted) <= set(record.tags):
            raise MemoryNotFound(memory_id=record_id)
        audit = new_audit("delete", now_ms=self.clock.now_ms(), record=record, actor=actor)
        deleted = await self.store.delete(record.id, audit=audit)
        if deleted is None:
            raise MemoryNotFound(memory_id=record_id)  # deleted concurrently
        self._announce("memory.deleted", deleted, action="delete")
        return {"ok": True, "id": deleted.id, "audit_id": audit.id}

    async def forget_session(self, session_id: str) -> int:
        """Remove a deleted session's session-tier memory."""
        audit = new_audit(
            "forget_session",
            now_ms=self.clock.now_ms(),
            actor="engine",
            detail={"session": session_id},
        )
        count = await self.store.delete_session(session_id, audit=audit)
        if count:
            self.events.publish(
                "memory.deleted",
                {
                    "action": "forget_session",
                    "tier": "session",
                    "count": count,
                    "scope": {"session": session_id},
                },
                topic=TOPIC,
            )
        return count

    async def audit(self, *, run_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        return [e.to_wire() for e in await self.store.audit(run_id=run_id, limit=limit)]

    # ------------------------------------------------------------------ import
    async def import_body(self, body: ImportBody) -> ImportSummary:
        """``POST /memory/import``: the tier defaults from the ids given (project, session, else global)."""
        raw_path = body.source.path if body.source is not None and body.source.path else body.path
        if not raw_path:
            raise ValidationFailed("`source.path` is required", field="source.path")
        path = Path(raw_path).expanduser()
        if not path.is_absolute():
            path = self._workspace() / path
        from .importer import ImportRequest

        tier = body.tier or (
            "project" if body.project_id else "session" if body.session_id else "global"
        )
        return await self.import_path(
            ImportRequest(
                path=path,
                format=body.format,
                tier=tier,
                project_id=body.project_id,
                session_id=body.session_id,
                sync_deletes=body.sync_deletes,
                source_binding_id=body.source_binding_id,
            )
        )

    async def import_path(
        self,
        request: ImportRequest,
        *,
        progress: Callable[[ImportProgress], None] | None = None,
    ) -> ImportSummary:
        from .importer import MemoryImportFailed

        described = {
            "path": str(request.path),
            "format": request.format,
            "tier": request.tier,
            "scope": {"project": request.project_id, "session": request.session_id},
        }
        self.events.publish("memory.import.started", described, topic=TOPIC)

        def report(step: ImportProgress) -> None:
            self.events.publish(
                "memory.import.progress",
                {**described, "done": step.done, "total": step.total},
                topic=TOPIC,
            )
            if progress is not None:
                progress(step)

        try:
            summary = await self.importer.run(request, progress=report)
        except (ValidationFailed, MemoryImportFailed) as exc:
            self.events.publish(
                "memory.import.failed",
                {**described, "error": exc.message, "code": exc.code},
                topic=TOPIC,
            )
            raise
        wire = summary.to_wire()
        self.events.publish(
            "memory.import.completed",
            {
                **described,
                **{
                    k: wire[k]
                    for k in (
                        "discovered_files",
                        "indexed_files",
                        "skipped_files",
                        "deleted_files",
                        "chunks_created",
                    )
                },
                "error_count": len(summary.errors),
            },
            topic=TOPIC,
        )
        return summary

    # ------------------------------------------------------------------ events
    def _announce(self, type: str, record: MemoryRecord, **extra: Any) -> None:
        self.events.publish(
            type,
            {
                "id": record.id,
                "tier": record.tier,
                "kind": record.kind,
                "scope": {"session": record.session_id, "project": record.project_id},
                **extra,
            },
            topic=TOPIC,
        )


def _search_body(
    hits: Sequence[SearchHit],
    used: Sequence[str],
    blocked: Sequence[str],
    *,
    audit_id: str | None,
    query: str,
) -> dict[str, Any]:
    return {
        "results": [h.to_wire() for h in hits],
        "count": len(hits),
        "query": query,
        "scopes_used": list(used),
        "blocked_scopes": list(blocked),
        "audit_id": audit_id,
    }


def _check_tier(tier: str, *, field: str) -> Tier:
    if tier not in TIERS:
        raise ValidationFailed(f"`{field}` must be one of {', '.join(TIERS)}", field=field)
    return tier  # type: ignore[return-value]


def _check_tiers(tiers: Sequence[str], *, field: str) -> tuple[Tier, ...]:
    return tuple(
        _check_tier(t, field=f"{field}[{i}]" if field == "tiers" else field)
        for i, t in enumerate(tiers)
    )


def _check_classification(value: str) -> None:
    from .governance import CLASSIFICATIONS

    if value not in CLASSIFICATIONS:
        raise ValidationFailed(
            f"`classification` must be one of {', '.join(CLASSIFICATIONS)}", field="classification"
        )


__all__ = ["TOPIC", "MemoryService"]
