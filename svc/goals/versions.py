"""Orchestration drafts and immutable published versions.

The draft is version 0: created once, then replaced with ``PUT`` under the optimistic
concurrency token ``expected_updated_at_ms`` (a stale or missing token is a 409). Each
publish validates the draft's graph and its workflow references, then writes the next
version number with the workflow definitions it was pinned to frozen alongside. Published
rows are never rewritten.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..clock import Clock
from .errors import (
    DraftConcurrencyConflict,
    InvalidOrchestrationRequest,
    OrchestrationArchived,
    OrchestrationInvalid,
    OrchestrationNotFound,
)
from .orchestration_repository import OrchestrationRepository, StoredOrchestration
from .workflows import Workflows

# Specs, their validation, workflow references and dry runs are imported on first use:
# start-up only builds the facade (docs/architecture.md, "Start-up budget").

if TYPE_CHECKING:
    from .definitions import Reference
    from .dryrun import DryRunBody
    from .orchestration import Orchestration, SpecBody
    from .tenancy import Caller
    from .validation import Report

Publish = Callable[[str, Mapping[str, Any], str | None], None]
"""Publishes a bus event: ``(type, properties, topic)``."""


def spec_response(spec: Orchestration) -> dict[str, Any]:
    """The reference's SpecResponse."""
    return {
        "orchestration": spec.to_wire(),
        "orchestration_id": spec.orchestration_id,
        "version": spec.version,
        "status": spec.status,
        "updated_at_ms": spec.updated_at_ms,
    }


class Orchestrations:
    def __init__(
        self, repo: OrchestrationRepository, workflows: Workflows, clock: Clock, publish: Publish
    ) -> None:
        self._repo = repo
        self._workflows = workflows
        self._clock = clock
        self._publish = publish

    # ------------------------------------------------------------------ drafts
    async def create_draft(
        self,
        caller: Caller,
        body: SpecBody,
        *,
        orchestration_id: str | None = None,
        extra_metadata: Mapping[str, Any] | None = None,
    ) -> Orchestration:
        from .orchestration import GoalPolicy, Orchestration, normalize_metadata

        if body.expected_updated_at_ms is not None:
            raise InvalidOrchestrationRequest(
                "a new draft takes no expected_updated_at_ms; use PUT to update",
                field="expected_updated_at_ms",
            )
        now = self._clock.now_ms()
        metadata = normalize_metadata(body.metadata) or {}
        metadata["created_by"] = caller.principal.actor_id
        metadata.update(extra_metadata or {})
        spec = Orchestration(
            orchestration_id=(
                orchestration_id or body.orchestration_id or f"orch-{uuid.uuid4()}"
            ).strip(),
            name=body.name,
            root_node_id=body.root_node_id,
            version=0,
            status="draft",
            schema_version=body.schema_version,
            description=body.description,
            nodes=list(body.nodes),
            edges=list(body.edges),
            goal_policy=body.goal_policy or GoalPolicy(),
            tenant_context=caller.tenant,
            created_at_ms=now,
            updated_at_ms=now,
            metadata=metadata,
        )
        await self._repo.insert_draft(spec)
        return spec

    async def update_draft(
        self, caller: Caller, orchestration_id: str, body: SpecBody
    ) -> Orchestration:
        from .orchestration import GoalPolicy, normalize_metadata
        from .tenancy import owner_id_of

        draft = await self._draft(caller, orchestration_id)
        if body.expected_updated_at_ms is None:
            raise DraftConcurrencyConflict(
                "draft updates require expected_updated_at_ms", updated_at_ms=draft.updated_at_ms
            )
        caller.require_orchestration_owner(owner_id_of(draft.created_by))
        metadata = normalize_metadata(body.metadata) or {}
        metadata["created_by"] = draft.created_by
        updated = attrs.evolve(
            draft,
            name=body.name,
            root_node_id=body.root_node_id,
            schema_version=body.schema_version,
            description=body.description,
            nodes=list(body.nodes),
            edges=list(body.edges),
            goal_policy=body.goal_policy or GoalPolicy(),
            metadata=metadata,
            # Updating makes an archived draft a draft again: it is the only way back.
            status="draft",
            updated_at_ms=self._next_token(draft),
        )
        await self._repo.replace_draft(updated, body.expected_updated_at_ms)
        return updated

    async def archive(
        self, caller: Caller, orchestration_id: str, expected: int | None
    ) -> Orchestration:
        from .tenancy import owner_id_of

        draft = await self._draft(caller, orchestration_id)
        caller.require_orchestration_owner(owner_id_of(draft.created_by))
        archived = attrs.evolve(draft, status="archived", updated_at_ms=self._next_token(draft))
        await self._repo.replace_draft(
            archived, draft.updated_at_ms if expected is None else expected
        )
        return archived

    async def refresh_references(
        self, caller: Caller, orchestration_id: str, expected: int | None
    ) -> tuple[Orchestration, list[str]]:
        """Pin every workflow node to its automation's current definition hash."""
        from .definitions import current_definitions, refreshed
        from .tenancy import owner_id_of

        draft = await self._draft(caller, orchestration_id)
        if expected is None:
            raise DraftConcurrencyConflict(
                "refreshing references requires expected_updated_at_ms",
                updated_at_ms=draft.updated_at_ms,
            )
        caller.require_orchestration_owner(owner_id_of(draft.created_by))
        definitions = await current_definitions(draft, self._workflows)
        spec, changed = refreshed(draft, definitions)
        spec = attrs.evolve(spec, updated_at_ms=self._next_token(draft))
        await self._repo.replace_draft(spec, expected)
        return spec, changed

    # ------------------------------------------------------------------ validation
    async def validate(self, caller: Caller, orchestration_id: str) -> dict[str, Any]:
        from .definitions import stale_only

        draft = await self._draft(caller, orchestration_id)
        report, refs = await self._check(draft, draft=True)
        return {
            "orchestration_id": orchestration_id,
            "version": 0,
            "report": report.to_wire(),
            "stale_references": [r.to_wire() for r in stale_only(refs)],
        }

    async def stale_references(self, caller: Caller, orchestration_id: str) -> dict[str, Any]:
        from .definitions import current_definitions, references_of, stale_only

        draft = await self._draft(caller, orchestration_id)
        refs = references_of(draft, await current_definitions(draft, self._workflows))
        stale = stale_only(refs)
        return {
            "orchestration_id": orchestration_id,
            "references": [r.to_wire() for r in refs],
            "stale_count": len(stale),
        }

    async def _check(self, spec: Orchestration, *, draft: bool) -> tuple[Report, list[Reference]]:
        from .definitions import current_definitions, reference_issues, references_of
        from .validation import validate_orchestration

        refs = references_of(spec, await current_definitions(spec, self._workflows))
        report = validate_orchestration(spec, draft=draft).with_issues(reference_issues(refs))
        return report, refs

    # ------------------------------------------------------------------ publish
    async def publish(
        self,
        caller: Caller,
        orchestration_id: str,
        expected: int | None,
        *,
        extra_metadata: Mapping[str, Any] | None = None,
    ) -> Orchestration:
        from .definitions import current_definitions, publishable, reference_issues, references_of
        from .tenancy import owner_id_of
        from .validation import validate_orchestration

        draft = await self._draft(caller, orchestration_id)
        if draft.status == "archived":
            raise OrchestrationArchived(
                "archived orchestrations cannot be published; update the draft first"
            )
        if expected is not None and expected != draft.updated_at_ms:
            raise DraftConcurrencyConflict(
                "orchestration draft was modified concurrently: stored updated_at_ms "
                f"{draft.updated_at_ms}, "
                f"expected {expected}",
                updated_at_ms=draft.updated_at_ms,
            )
        caller.require_orchestration_owner(owner_id_of(draft.created_by))
        now = self._clock.now_ms()
        candidate = attrs.evolve(
            draft, version=1, status="published", published_at_ms=now, updated_at_ms=now
        )
        definitions = await current_definitions(draft, self._workflows)
        refs = references_of(draft, definitions)
        report = validate_orchestration(candidate, draft=False).with_issues(reference_issues(refs))
        if not report.valid or not publishable(refs):
            raise OrchestrationInvalid(
                "publishing requires a valid graph and refreshed workflow references",
                report=report.to_wire(),
                stale_references=[r.to_wire() for r in refs if r.state != "fresh"],
            )
        hashes = {d.automation_id: d.definition_hash for d in definitions.values()}
        snapshots = {d.automation_id: dict(d.spec) for d in definitions.values()}
        publish_meta = {
            "actor": caller.principal.ref(),
            "run_as": None,
            "published_at_ms": now,
            "validation": report.to_wire(),
            "workflow_definition_hashes": hashes,
            **(extra_metadata or {}),
        }

        def build(version: int) -> Orchestration:
            return attrs.evolve(
                candidate,
                version=version,
                metadata={**(draft.metadata or {}), "publish": publish_meta},
            )

        published = await self._repo.publish(
            caller.tenant, orchestration_id, draft.updated_at_ms, build, snapshots
        )
        self._publish(
            "orchestration.publish_receipt",
            {
                "orchestrationID": orchestration_id,
                "version": published.version,
                "effective_actor": caller.principal.ref(),
                "run_as": None,
                "tenantContext": caller.tenant.to_wire(),
            },
            "orchestrations",
        )
        return published

    # ------------------------------------------------------------------ reads
    async def get(self, caller: Caller, orchestration_id: str) -> dict[str, Any]:
        draft = await self._repo.orchestration(caller.tenant, orchestration_id, 0)
        latest = await self._repo.latest_published(caller.tenant, orchestration_id)
        if draft is None and latest is None:
            raise OrchestrationNotFound(f"orchestration {orchestration_id!r} not found")
        return {
            "orchestration_id": orchestration_id,
            "draft": draft.spec.to_wire() if draft else None,
            "latest_published": latest.spec.to_wire() if latest else None,
        }

    async def summaries(
        self, caller: Caller, *, status: str | None, limit: int
    ) -> list[dict[str, Any]]:
        from .orchestration import ORCHESTRATION_STATUSES

        if status is not None and status not in ORCHESTRATION_STATUSES:
            raise InvalidOrchestrationRequest(
                f"unknown orchestration status {status!r}; "
                f"one of {', '.join(ORCHESTRATION_STATUSES)}",
                field="status",
            )
        summaries = await self._repo.summaries(caller.tenant)
        if status == "published":
            summaries = [s for s in summaries if s["published_versions"]]
        elif status in ("draft", "archived"):
            summaries = [
                s for s in summaries if s["draft"] is not None and s["draft"]["status"] == status
            ]
        return summaries[:limit]

    async def versions(self, caller: Caller, orchestration_id: str) -> list[dict[str, Any]]:
        return [
            {
                "version": v.version,
                "name": v.name,
                "published_at_ms": v.published_at_ms,
                "metadata": v.metadata,
            }
            for v in await self._repo.versions(caller.tenant, orchestration_id)
        ]

    async def version(
        self, caller: Caller, orchestration_id: str, version: int
    ) -> StoredOrchestration:
        stored = await self._repo.orchestration(caller.tenant, orchestration_id, version)
        if stored is None:
            raise OrchestrationNotFound(
                f"orchestration {orchestration_id!r} version {version} not found"
            )
        return stored

    async def dry_run(
        self, caller: Caller, orchestration_id: str, body: DryRunBody
    ) -> dict[str, Any]:
        from .dryrun import dry_run

        if body.version is None:
            spec = await self._draft(caller, orchestration_id)
        else:
            spec = (await self.version(caller, orchestration_id, body.version)).spec
        return dry_run(spec, body)

    # ------------------------------------------------------------------ helpers
    async def _draft(self, caller: Caller, orchestration_id: str) -> Orchestration:
        stored = await self._repo.orchestration(caller.tenant, orchestration_id, 0)
        if stored is None:
            raise OrchestrationNotFound(f"orchestration draft {orchestration_id!r} not found")
        return stored.spec

    def _next_token(self, spec: Orchestration) -> int:
        # The token must change on every write, even two writes in one millisecond.
        return max(self._clock.now_ms(), spec.updated_at_ms + 1)


__all__ = ["Orchestrations", "spec_response"]
