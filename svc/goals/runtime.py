"""What every goal operation needs: the store, the workflows, the clock and the event outlets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..clock import Clock
from ..events import EventLog
from .event_repository import GoalEventRepository
from .events import GoalEvent, GoalEventFeed
from .orchestration_repository import OrchestrationRepository
from .repository import Commit, GoalRepository
from .request_repository import RequestLedger
from .workflows import Workflows

if TYPE_CHECKING:
    from .goal import Goal
    from .orchestration import Orchestration


@attrs.frozen
class PinnedVersion:
    """The orchestration version a goal runs.

    With the workflow definitions frozen at its publication.
    """

    spec: Orchestration
    snapshots: Mapping[str, Mapping[str, Any]]


@attrs.define(eq=False)
class GoalRuntime:
    repo: GoalRepository
    orchestration_repo: OrchestrationRepository
    event_repo: GoalEventRepository
    ledger: RequestLedger
    workflows: Workflows
    clock: Clock
    feed: GoalEventFeed
    events_log: EventLog
    """The engine's event log: linked runs' lifecycle events are watched there."""

    def now(self) -> int:
        return self.clock.now_ms()

    def stamp(self, goal: Goal, **changes: Any) -> Goal:
        """``goal`` with ``changes`` and a fresh ``updated_at_ms``.

        Strictly increasing: it is a concurrency token.
        """
        return attrs.evolve(goal, updated_at_ms=max(self.now(), goal.updated_at_ms + 1), **changes)

    async def commit(self, change: Commit) -> list[GoalEvent]:
        events = await self.repo.commit(change)
        if events:
            self.feed.notify()
        return events

    def publish_bus(self, type: str, properties: Mapping[str, Any], topic: str | None) -> None:
        self.events_log.publish(type, properties, topic=topic)

    def bus(self, goal: Goal, type: str, properties: Mapping[str, Any]) -> None:
        """A non-durable ``orchestration.goal.*`` event for live listeners (topic ``goal/<id>``)."""
        self.publish_bus(
            type,
            {"goalID": goal.goal_id, **properties, "tenantContext": goal.tenant_context.to_wire()},
            f"goal/{goal.goal_id}",
        )

    async def pinned_version(self, goal: Goal) -> PinnedVersion | None:
        stored = await self.orchestration_repo.orchestration(
            goal.tenant_context, goal.orchestration_id, goal.orchestration_version
        )
        if stored is None:
            return None
        return PinnedVersion(stored.spec, stored.snapshots or {})


__all__ = ["GoalRuntime", "PinnedVersion"]
