"""The goals facade, ``engine.goals``.

Orchestrations, goal start, mutations routed to goal actors, read models.

Reads go straight to the store (filtered by the caller's tenant, so another tenant's
goal is a 404). Starting a goal commits it here (it has no actor yet); every later
change of a goal is a message to its actor ``goal/<goal_id>``, activated on demand and
rehydrated from the store after a restart.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from actors import ActorDead, ActorError, ActorNotFound

from ..cluster import OwnedElsewhere
from ..entities import Ask, Entities, EntityKind
from ..errors import Busy
from .errors import GoalNotFound, GoalTerminal, InvalidGoalRequest, OrchestrationNotFound
from .event_repository import GoalEventRepository
from .events import GoalEventFeed, events_page_wire
from .ids import GOAL_PREFIX
from .legacy import LegacyReport, import_legacy_handoffs
from .legacy_repository import LegacyHandoffRepository
from .orchestration_repository import OrchestrationRepository
from .repository import GoalRepository
from .request_repository import RequestLedger
from .runtime import GoalRuntime
from .versions import Orchestrations
from .workflows import Workflows

# The goal actor, its kernel, request bodies, read models, projections and records of
# goal rows are imported on first use: start-up on a fresh store reads no goal and runs
# no goal operation (docs/architecture.md, "Start-up budget").

if TYPE_CHECKING:
    from actors import ActorRef

    from ..engine import Engine
    from .actor import GoalActor
    from .events import GoalEvent
    from .goal import Goal, RunLink
    from .messages import Reply
    from .requests import CompletionBody, StartGoal, TransitionBody
    from .runtime import PinnedVersion
    from .tenancy import Caller
    from .workflows import WorkflowRun

log = logging.getLogger("svc.goals")

R = TypeVar("R")

ASK_TIMEOUT = 60.0


class GoalService:
    def __init__(self, engine: Engine, *, event_retention: int = 10_000) -> None:
        self._engine = engine
        self.repo = GoalRepository(engine.store, event_retention=event_retention)
        self.workflows = Workflows(engine)
        event_repo = GoalEventRepository(engine.store)
        orchestration_repo = OrchestrationRepository(engine.store)
        self.feed = GoalEventFeed(event_repo, engine.clock.now_ms)
        self.rt = GoalRuntime(
            repo=self.repo,
            orchestration_repo=orchestration_repo,
            event_repo=event_repo,
            ledger=RequestLedger(engine.store),
            workflows=self.workflows,
            clock=engine.clock,
            feed=self.feed,
            events_log=engine.events,
        )
        self._legacy = LegacyHandoffRepository(engine.store)
        self.legacy_report = LegacyReport()
        self.orchestrations = Orchestrations(
            orchestration_repo, self.workflows, engine.clock, self.rt.publish_bus
        )

    # ------------------------------------------------------------------ lifecycle
    def install(self, entities: Entities) -> None:
        """Register lazy activation of ``goal/<id>`` actors under the goals supervisor."""
        self.entities = entities
        entities.register(
            EntityKind(
                GOAL_PREFIX,
                "goals",
                lambda goal_id: GoalNotFound(f"goal {goal_id!r} not found"),
                timeout=ASK_TIMEOUT,
            ),
            self._activate,
        )

    async def _activate(self, name: str) -> GoalActor | None:
        from .actions import dispatch
        from .actor import GoalActor

        goal = await self.repo.goal(name[len(GOAL_PREFIX) :])
        if goal is None:
            return None
        pinned = await self.rt.pinned_version(goal)
        if pinned is None:
            log.error(
                "goal %s names orchestration %s v%s, which is gone",
                goal.goal_id,
                goal.orchestration_id,
                goal.orchestration_version,
            )
            return None
        return GoalActor(self.rt, goal, pinned, dispatch)

    async def activate_open_goals(self) -> int:
        """At start-up: one actor per goal that has not ended (deadlines and run watches resume)."""
        count = 0
        ownership = self._engine.entities.ownership
        for goal_id in await self.repo.open_goal_ids():
            try:
                if ownership is not None:
                    # Replicas on one store (svc/cluster): each goal's timers run on
                    # the replica holding its lease; another replica owns this one.
                    await ownership.check_owner(GOAL_PREFIX, goal_id)
                await self._engine.actors.get_or_spawn(GOAL_PREFIX + goal_id)
                count += 1
            except (ActorNotFound, ActorError):
                log.exception("goal %s could not be activated", goal_id)
            except OwnedElsewhere:
                continue
        return count

    async def import_legacy(self) -> LegacyReport:
        """Import ``<workspace>/shared/handoffs`` envelopes (idempotent; every start-up)."""
        report = await import_legacy_handoffs(
            self._legacy, self.workspace, self.workflows.known_automation_ids(), self.rt.now()
        )
        self.legacy_report = report
        if report.files:
            self._engine.events.publish(
                "goals.legacy_handoffs.imported", report.to_wire(), topic="orchestrations"
            )
        return report

    async def legacy(self) -> dict[str, Any]:
        handoffs = await self._legacy.handoffs()
        quarantined = await self._legacy.quarantine()
        return {
            "handoffs": handoffs,
            "count": len(handoffs),
            "quarantined": quarantined,
            "quarantined_count": len(quarantined),
        }

    def close(self) -> None:
        """Shutdown: end live goal event streams so HTTP can stop promptly."""
        self.feed.close()

    @property
    def workspace(self) -> Path:
        return self._engine.workspace

    # ------------------------------------------------------------------ start
    async def start(self, caller: Caller, body: StartGoal) -> dict[str, Any]:
        """Start a goal at its orchestration's root node; the same key again replays it."""
        from .start import start_goal

        return await start_goal(self.rt, caller, body, self._ref)

    # ------------------------------------------------------------------ mutations
    async def transition(self, caller: Caller, goal_id: str, body: TransitionBody) -> Reply:
        from .artifacts import enforce_content_policy, parse_artifact
        from .kernel import TransitionRequest
        from .messages import Transition
        from .requests import check_key

        goal = await self._open_goal(caller, goal_id, "emit transitions")
        artifact = parse_artifact(body.artifact) if body.artifact is not None else None
        enforce_content_policy(artifact, self.workspace)
        request = TransitionRequest(
            transition_key=body.transition_key,
            idempotency_key=check_key(body.idempotency_key),
            artifact=artifact,
        )
        return await self._ask(goal.goal_id, Transition(caller, request))

    async def complete(self, caller: Caller, goal_id: str, body: CompletionBody) -> Reply:
        from .artifacts import enforce_content_policy, parse_artifact
        from .completion import CompletionRequest
        from .messages import Complete

        goal = await self._open_goal(caller, goal_id, "be completed")
        artifact = (
            parse_artifact(body.final_artifact, field="final_artifact")
            if body.final_artifact is not None
            else None
        )
        enforce_content_policy(artifact, self.workspace, field="final_artifact")
        request = CompletionRequest(
            transition_key=(body.transition_key or "").strip() or None, final_artifact=artifact
        )
        return await self._ask(goal.goal_id, Complete(caller, request))

    async def pause(self, caller: Caller, goal_id: str, reason: str | None = None) -> Reply:
        from .messages import Pause

        await self.goal(caller, goal_id)
        return await self._ask(goal_id, Pause(caller, reason or "operator pause"))

    async def resume(self, caller: Caller, goal_id: str, reason: str | None = None) -> Reply:
        from .messages import Resume

        await self.goal(caller, goal_id)
        return await self._ask(goal_id, Resume(caller, reason or "operator resume"))

    async def cancel(self, caller: Caller, goal_id: str, reason: str | None = None) -> Reply:
        from .messages import Cancel

        await self.goal(caller, goal_id)
        return await self._ask(goal_id, Cancel(caller, reason or "operator cancel"))

    async def decide_handoff(
        self,
        caller: Caller,
        goal_id: str,
        handoff_id: str,
        decision: Any,
        reason: str | None = None,
    ) -> Reply:
        from .messages import DecideHandoff

        await self.goal(caller, goal_id)
        return await self._ask(goal_id, DecideHandoff(caller, handoff_id, decision, reason))

    async def resolve_wait(
        self, caller: Caller, goal_id: str, wait_id: str, idempotency_key: Any, payload: Any
    ) -> Reply:
        from .messages import ResolveWait
        from .waits import check_resolution_input

        await self.goal(caller, goal_id)
        key = check_resolution_input(idempotency_key, payload)
        return await self._ask(goal_id, ResolveWait(caller, wait_id, key, payload))

    async def dispatch_action(
        self, caller: Caller, goal_id: str, action_id: str, body: Any
    ) -> Reply:
        from .messages import DispatchAction

        await self.goal(caller, goal_id)
        return await self._ask(goal_id, DispatchAction(caller, action_id, body))

    async def _open_goal(self, caller: Caller, goal_id: str, what: str) -> Goal:
        from .tenancy import owner_id_of

        goal = await self.goal(caller, goal_id)
        if goal.terminal:
            raise GoalTerminal(f"terminal goals cannot {what}", goal_status=goal.status)
        caller.require_goal_owner(owner_id_of(goal.started_by))
        return goal

    async def _ref(self, goal_id: str) -> ActorRef:
        return await self.entities.ref(GOAL_PREFIX, goal_id)

    async def _ask(self, goal_id: str, message: Ask[R]) -> R:
        # A goal's actor stops once its goal has ended and the requests queued by then are
        # answered; a message that arrives later goes to the next incarnation (the gateway
        # retries it there), and one that still cannot be delivered is a retryable busy.
        try:
            return await self.entities.ask(GOAL_PREFIX, goal_id, message)
        except ActorDead:
            raise Busy("the goal's actor is restarting; retry shortly", goal_id=goal_id) from None

    # ------------------------------------------------------------------ reads
    async def goal(self, caller: Caller, goal_id: str) -> Goal:
        goal = await self.repo.goal(goal_id, caller.tenant)
        if goal is None:
            raise GoalNotFound(f"goal {goal_id!r} not found")
        return goal

    async def list_goals(
        self,
        caller: Caller,
        *,
        status: str | None = None,
        orchestration_id: str | None = None,
        limit: int = 100,
    ) -> list[Goal]:
        from .goal import GOAL_STATUSES

        if status is not None and status not in GOAL_STATUSES:
            raise InvalidGoalRequest(
                f"unknown goal status {status!r}; one of {', '.join(GOAL_STATUSES)}", field="status"
            )
        return await self.repo.goals(
            caller.tenant, status=status, orchestration_id=orchestration_id, limit=limit
        )

    async def view(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        from .readmodels import budgets

        goal = await self.goal(caller, goal_id)
        return {
            "goal": goal.to_wire(),
            "goal_id": goal.goal_id,
            "status": goal.status,
            "budgets": budgets(goal, self.rt.now()),
        }

    async def budgets(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        from .readmodels import budgets

        goal = await self.goal(caller, goal_id)
        return {
            "goal_id": goal.goal_id,
            "status": goal.status,
            "budgets": budgets(goal, self.rt.now()),
        }

    async def _pinned(self, goal: Goal) -> PinnedVersion:
        pinned = await self.rt.pinned_version(goal)
        if pinned is None:
            raise OrchestrationNotFound(
                f"orchestration {goal.orchestration_id!r} version "
                f"{goal.orchestration_version} not found"
            )
        return pinned

    async def _runs(self, goal: Goal) -> tuple[list[RunLink], dict[str, WorkflowRun | None]]:
        links = await self.repo.links(goal.goal_id)
        return links, {lk.run_id: await self.workflows.run(lk.run_id) for lk in links}

    async def graph(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        from .readmodels import graph

        goal = await self.goal(caller, goal_id)
        pinned = await self._pinned(goal)
        links, runs = await self._runs(goal)
        return graph(
            goal,
            pinned.spec,
            links,
            runs,
            await self.repo.waits(goal_id),
            pinned.snapshots,
            self.rt.now(),
        )

    async def runs(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        from .readmodels import runs_view

        goal = await self.goal(caller, goal_id)
        links, runs = await self._runs(goal)
        return runs_view(goal, links, runs)

    async def artifacts(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        from .readmodels import artifacts_view

        goal = await self.goal(caller, goal_id)
        return artifacts_view(goal, await self.repo.handoffs(goal_id))

    async def handoffs(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        from .readmodels import handoffs_view

        goal = await self.goal(caller, goal_id)
        return handoffs_view(goal, await self.repo.handoffs(goal_id))

    async def waits(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        from .readmodels import waits_view

        goal = await self.goal(caller, goal_id)
        return waits_view(goal, await self.repo.waits(goal_id), await self.repo.links(goal_id))

    async def wait(self, caller: Caller, goal_id: str, wait_id: str) -> dict[str, Any]:
        from .wait_ops import find_wait

        goal = await self.goal(caller, goal_id)
        return {
            "goal_id": goal.goal_id,
            "wait": (await find_wait(self.rt, goal, wait_id)).to_wire(),
        }

    async def summary(self, caller: Caller, goal_id: str) -> dict[str, Any]:
        """The ``goal_get`` tool's view: goal, run links, handoffs, waits and budgets."""
        from .readmodels import budgets, waits_view

        goal = await self.goal(caller, goal_id)
        links = await self.repo.links(goal_id)
        return {
            "goal": goal.to_wire(),
            "run_links": [lk.to_wire() for lk in links],
            "handoffs": [h.to_wire() for h in await self.repo.handoffs(goal_id)],
            "waits": waits_view(goal, await self.repo.waits(goal_id), links)["waits"],
            "budgets": budgets(goal, self.rt.now(), with_deadline=False),
        }

    async def projection(
        self, caller: Caller, goal_id: str, *, cursor: int | None, limit: int | None = None
    ) -> dict[str, Any]:
        """``limit``: goal events in the timeline (None: the projection's ``DEFAULT_LIMIT``)."""
        from .projection import DEFAULT_LIMIT, build_projection

        goal = await self.goal(caller, goal_id)
        return await build_projection(
            self.rt,
            goal,
            await self._pinned(goal),
            caller,
            cursor=cursor,
            limit=DEFAULT_LIMIT if limit is None else limit,
        )

    async def events(
        self, caller: Caller, goal_id: str, *, cursor: int = 0, limit: int = 250
    ) -> dict[str, Any]:
        goal = await self.goal(caller, goal_id)
        return events_page_wire(
            goal.goal_id, await self.feed.page(goal.goal_id, after=cursor, limit=limit)
        )

    async def event_list(
        self, goal_id: str, *, cursor: int = 0, limit: int = 250
    ) -> list[GoalEvent]:
        """Durable events of a goal after ``cursor`` (no tenant check: for in-process callers)."""
        return await self.feed.page(goal_id, after=cursor, limit=limit)


__all__ = ["GoalService"]
