"""The memory facade: what routes, tools and other domains call.

It resolves who a request speaks for (a session's project, a run's session),
writes through the repositories with an audit entry in the same transaction,
and announces changes as events on the ``memory`` topic. Memory events never
carry session or run ids in the keys the event log routes by, so they do not
appear in a run's own event stream.

The request shapes are handled in their own modules, imported on first use:
puts (:mod:`.writes`), searches (:mod:`.searches`), promotion and demotion
(:mod:`.promotion`) and imports (:mod:`.import_runs`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from ..clock import Clock
from ..events import EventLog
from .factory import build_record, new_audit, normalize_tags
from .store import MemoryStore
from .tiers import TIERS, check_tiers

# The record shapes, the governance checks, the request shapes, the scrubber and the file importer
# are imported on first use: start-up builds the service but serves no request
# (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    from .import_plan import ImportProgress, ImportRequest, ImportSummary
    from .importer import Importer
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


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        *,
        events: EventLog,
        clock: Clock,
        sessions: Any = None,
        workspace: Callable[[], Path] | None = None,
        roots: Callable[[], Sequence[Path]] | None = None,
    ) -> None:
        self.store = store
        self.events = events
        self.clock = clock
        self.sessions = sessions
        """The engine's SessionService (resolves a run's session and a session's project)."""
        self.workspace = workspace or Path.cwd
        """Where a relative import path is resolved."""
        self.roots: Callable[[], Sequence[Path]] = roots or (lambda: ())
        """The workspace roots an import path must lie in (none: anywhere)."""
        self._importer: Importer | None = None
        self.exchanges: Any = None
        """The :class:`~svc.memory.exchanges.ExchangeRecorder`, when the component runs one."""

    @property
    def importer(self) -> Importer:
        """The file importer, built by the first import (imported on first use)."""
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
        wanted = check_tiers(tiers, field=field) if tiers else TIERS
        return MemoryScope.for_context(session_id=session_id, project_id=project_id, tiers=wanted)

    async def operator_scope(
        self,
        *,
        session_id: str | None,
        project_id: str | None,
        tiers: Sequence[str] | None = None,
        field: str = "tiers",
    ) -> MemoryScope:
        """A caller naming a session or project sees that context;
        one naming neither sees every record."""
        from .records import MemoryScope, ScopeClause

        if session_id or project_id:
            return await self.context_scope(
                session_id=session_id, project_id=project_id, tiers=tiers, field=field
            )
        wanted = check_tiers(tiers, field=field) if tiers else TIERS
        return MemoryScope(tuple(ScopeClause(t) for t in wanted))

    # ------------------------------------------------------------------ requests
    async def put(self, request: PutRequest | GovernedPutRequest) -> dict[str, Any]:
        from .writes import put

        return await put(self, request)

    async def search(self, request: SearchRequest | GovernedSearchRequest) -> dict[str, Any]:
        from .searches import search

        return await search(self, request)

    async def promote(self, request: PromoteRequest | GovernedPromoteRequest) -> dict[str, Any]:
        from .promotion import promote

        return await promote(self, request)

    async def demote(self, request: DemoteRequest) -> dict[str, Any]:
        from .promotion import demote

        return await demote(self, request)

    async def import_body(self, body: ImportBody) -> ImportSummary:
        """``POST /memory/import``: the tier defaults from the ids given
        (project, session, else global)."""
        from .import_runs import import_body

        return await import_body(self, body)

    async def import_path(
        self,
        request: ImportRequest,
        *,
        progress: Callable[[ImportProgress], None] | None = None,
    ) -> ImportSummary:
        """Run an import, announcing its start, progress and end on the ``memory`` topic."""
        from .import_runs import import_path

        return await import_path(self, request, progress=progress)

    # ------------------------------------------------------------------ records
    async def store_record(
        self, new: NewRecord, *, action: str = "put", actor: str | None = None
    ) -> MemoryRecord:
        """Store one record with its audit entry; announces ``memory.updated``."""
        now = self.clock.now_ms()
        audit = new_audit(action, now_ms=now, run_id=new.run_id, actor=actor or new.source_type)
        record = build_record(
            attrs.evolve(new, provenance={**new.provenance, "audit_id": audit.id}), now_ms=now
        )
        audit = attrs.evolve(audit, record_id=record.id, tier=record.tier)
        await self.store.records.insert([record], audit=[audit])
        self.announce("memory.updated", record, action=action)
        return record

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
        return await self.store.records.search(query, scope, tags=tags, kinds=kinds, limit=limit)

    async def get(self, record_id: str, scope: MemoryScope | None = None) -> MemoryRecord:
        from .governance import MemoryNotFound

        record = await self.store.records.get(record_id)
        if record is None or (scope is not None and not scope.allows(record)):
            raise MemoryNotFound(memory_id=record_id)
        return record

    async def require(self, record_id: str, *, field: str) -> MemoryRecord:
        """The record, or a 404 naming ``field``."""
        from .governance import MemoryNotFound

        record = await self.store.records.get(record_id)
        if record is None:
            raise MemoryNotFound(memory_id=record_id, field=field)
        return record

    async def page(
        self,
        scope: MemoryScope,
        *,
        text: str | None = None,
        tags: Sequence[str] = (),
        kinds: Sequence[str] = (),
        limit: int = 100,
        offset: int = 0,
    ) -> tuple[list[MemoryRecord], int]:
        """Records in ``scope`` newest first, and how many match in all."""
        return await self.store.records.page(
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
        """Delete a record the scope can see, in ``project_id`` and carrying ``tags``
        when given (404 otherwise)."""
        from .governance import MemoryNotFound

        record = await self.get(record_id, scope)
        wanted = normalize_tags(tags)
        if (project_id and record.project_id != project_id) or not set(wanted) <= set(record.tags):
            raise MemoryNotFound(memory_id=record_id)
        audit = new_audit("delete", now_ms=self.clock.now_ms(), record=record, actor=actor)
        deleted = await self.store.records.delete(record.id, audit=audit)
        if deleted is None:
            raise MemoryNotFound(memory_id=record_id)  # deleted concurrently
        self.announce("memory.deleted", deleted, action="delete")
        return {"ok": True, "id": deleted.id, "audit_id": audit.id}

    async def forget_session(self, session_id: str) -> int:
        """Remove a deleted session's session-tier memory."""
        audit = new_audit(
            "forget_session",
            now_ms=self.clock.now_ms(),
            actor="engine",
            detail={"session": session_id},
        )
        count = await self.store.records.delete_session(session_id, audit=audit)
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
        entries = await self.store.audit.entries(run_id=run_id, limit=limit)
        return [e.to_wire() for e in entries]

    # ------------------------------------------------------------------ events
    def announce(self, type: str, record: MemoryRecord, **extra: Any) -> None:
        """Publish a change of ``record`` on the ``memory`` topic."""
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


__all__ = ["TOPIC", "MemoryService"]
