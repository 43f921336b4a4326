"""The MissionSupervisor: one per active mission, holding the mission's budget scope.

It is an actor (``team/<mission>``) under the engine's ``teams`` dynamic
supervisor, and it supervises its instances (``team/<mission>/<instance>``)
with a dynamic supervisor of its own, so a crashed instance restarts alone,
from its stored record. The mission's :class:`~supervisors.BudgetScope`
(``mission_total_budget``) is the parent of every instance's scope:

* charging any run charges its instance and the mission;
* an exhausted mission cancels every instance (and run) inside it in one move
  and announces ``agent_team.mission.budget.exhausted``;
* cancelling the mission cancels the scope, which ends every running instance;
  the mission then takes new instances under a fresh scope that carries the
  usage forward (a cancelled mission is not a spent one).

When its last instance has ended the supervisor stops; the next spawn (or an
engine restart with running instances) activates it again from the store,
with its counters, and restarts the instances that were running.
"""

from __future__ import annotations

import functools
import logging

import attrs

from actors import Actor, ActorRef
from supervisors import (
    BudgetLimits,
    BudgetScope,
    DynamicSupervisor,
    Exhaustion,
    Restart,
    run_dynamic_supervisor,
)

from . import events as ev
from .budgets import mission_spent
from .context import RuntimePolicy, TeamsContext, instance_actor_name
from .errors import SpawnDenied
from .instance import InstanceActor
from .messages import CancelMission, CheckMission, InstanceEnded, StartInstance
from .records import Instance, MissionState, SpawnRequest, usage_to_wire

log = logging.getLogger("svc.teams")


@attrs.frozen
class _Exhausted:
    limit: str


class MissionSupervisor(Actor):
    mailbox_size = 256

    def __init__(self, ctx: TeamsContext, state: MissionState, runtime: RuntimePolicy) -> None:
        self.ctx = ctx
        self.state = state
        self.runtime = runtime
        self.scope: BudgetScope | None = None
        self.live: set[str] = set()
        """The ids of the instances running under this mission (told when each ends)."""
        self._supervisor: DynamicSupervisor | None = None

    @property
    def mission_id(self) -> str:
        return self.state.id

    # ------------------------------------------------------------------ lifecycle
    async def started(self) -> None:
        self._supervisor = await self.nursery.start(
            functools.partial(
                run_dynamic_supervisor,
                name=f"mission/{self.mission_id}",
                max_restarts=5,
                max_seconds=30.0,
            )
        )
        self.scope = self._open_scope()
        await self.ctx.repo.save_mission(self.state)
        await self._restore_running()

    async def stopped(self, error: BaseException | None) -> None:
        if self.scope is not None:
            self.state = attrs.evolve(
                self.state, usage=self.scope.usage, updated_at_ms=self.ctx.now_ms()
            )
            await self.ctx.repo.save_mission(self.state)

    def _open_scope(self) -> BudgetScope:
        return BudgetScope(
            self.state.limits,
            name=f"mission/{self.mission_id}",
            on_exhausted=self._on_exhausted,
            initial_usage=self.state.usage,
        )

    async def _restore_running(self) -> None:
        """Start again the instances the store says are running (after a restart or a crash)."""
        for instance in await self.ctx.repo.instances(mission_id=self.mission_id, status="running"):
            if instance.id in self.live:
                continue
            try:
                await self._start(instance, self.runtime, None, None)
            except Exception:
                log.exception("could not restore agent instance %s", instance.id)

    # ------------------------------------------------------------------ messages
    async def receive(self, message: object) -> object:
        match message:
            case StartInstance(
                instance=instance,
                runtime=runtime,
                limits=limits,
                prompt=prompt,
                spawned_by=spawned_by,
            ):
                self._apply_limits(limits)
                self.runtime = runtime
                return await self._start(instance, runtime, prompt, spawned_by)
            case CheckMission(limits=limits):
                self._apply_limits(limits)
                return self._spent()
            case CancelMission(reason=reason):
                return await self._cancel(reason)
            case InstanceEnded(instance_id=instance_id):
                self.live.discard(instance_id)
                await self._save()
                if not self.live:
                    # Nothing runs here any more: stop; the store has the counters.
                    self.stop()
                return None
            case _Exhausted(limit=limit):
                self.state = attrs.evolve(self.state, exhausted_by=limit)
                await self._save()
                return None
        raise TypeError(f"mission supervisor cannot handle {type(message).__name__}")

    def _apply_limits(self, limits: BudgetLimits) -> None:
        """Adopt the policy's current limits when no instance runs under the old ones."""
        assert self.scope is not None
        if limits == self.state.limits or self.live:
            return
        self.state = attrs.evolve(
            self.state,
            limits=limits,
            usage=self.scope.usage,
            exhausted_by=None
            if mission_spent(limits, self.scope.usage) is None
            else self.state.exhausted_by,
        )
        self.scope = self._open_scope()

    def _spent(self) -> str | None:
        assert self.scope is not None
        spent = mission_spent(self.state.limits, self.scope.usage)
        if spent is None and self.scope.exhausted is not None:
            spent = f"mission {self.scope.exhausted.limit} exhausted"
        return spent

    async def _start(
        self,
        instance: Instance,
        runtime: RuntimePolicy,
        prompt: str | None,
        spawned_by: SpawnRequest | None,
    ) -> ActorRef:
        """Start (or, without ``spawned_by``, restore) an instance under this mission."""
        assert self.scope is not None and self._supervisor is not None
        if self.scope.cancelled:
            if self.scope.exhausted is not None:
                raise SpawnDenied(
                    "spawn_mission_budget_exceeded", self._spent() or "mission budget exhausted"
                )
            # Cancelled earlier: the mission goes on under a fresh scope with the same usage.
            self.state = attrs.evolve(self.state, usage=self.scope.usage)
            self.scope = self._open_scope()
        if spawned_by is not None:
            # Recorded here, not by the caller: a mission activated meanwhile
            # restores running instances, and must not restore this one too.
            await self.ctx.repo.save_instance(instance)
        handed = [
            InstanceActor(
                self.ctx,
                instance,
                mission_scope=self.scope,
                mission=self.ref,
                runtime=runtime,
                prompt=prompt,
                spawned_by=spawned_by,
            )
        ]
        instance_id = instance.id

        # The supervisor takes a factory that may produce nothing (the instance is gone);
        # its annotation says Actor only.
        async def make() -> Actor | None:
            if handed:
                return handed.pop()
            # A restart after a crash (in the supervisor's task, within this actor):
            # rehydrate from the store, without the initial prompt.
            record = await self.ctx.repo.get_instance(instance_id)
            if record is None or record.terminal or self.scope is None:
                self.live.discard(instance_id)
                return None
            return InstanceActor(
                self.ctx, record, mission_scope=self.scope, mission=self.ref, runtime=self.runtime
            )

        self.live.add(instance_id)
        try:
            return await self._supervisor.start_actor(
                self.ctx.engine.actors,
                instance_actor_name(self.mission_id, instance_id),
                make,
                restart=Restart.TRANSIENT,
            )
        except BaseException as exc:
            self.live.discard(instance_id)
            if spawned_by is not None and isinstance(exc, Exception):
                now = self.ctx.now_ms()
                failed = attrs.evolve(
                    instance,
                    status="failed",
                    reason=f"the instance could not start: {exc}",
                    updated_at_ms=now,
                    ended_at_ms=now,
                )
                await self.ctx.repo.save_instance(failed)
            raise

    async def _cancel(self, reason: str) -> list[str]:
        """Cancel every running instance (through the mission scope); reply with their ids.

        Each then records its end and stops on its own; the caller waits for that."""
        assert self.scope is not None
        running = sorted(self.live)
        now = self.ctx.now_ms()
        self.scope.cancel(reason)
        self.state = attrs.evolve(
            self.state,
            usage=self.scope.usage,
            cancelled_at_ms=now,
            cancel_reason=reason,
            updated_at_ms=now,
        )
        await self.ctx.repo.save_mission(self.state)
        return running

    def _on_exhausted(self, scope: BudgetScope, exhaustion: Exhaustion) -> None:
        # Synchronous, in the task that charged the last unit: announce it now;
        # the scope tree then cancels every instance and run of the mission.
        self.ctx.events.publish(
            ev.MISSION_BUDGET_EXHAUSTED,
            mission_id=self.mission_id,
            exhaustedBy=f"mission_{exhaustion.limit}",
            **{k: v for k, v in usage_to_wire(exhaustion.usage).items() if k != "elapsedMs"},
        )
        # Noted at once (stopped() persists it even if the mission stops first),
        # and persisted promptly through the mailbox.
        self.state = attrs.evolve(self.state, exhausted_by=exhaustion.limit)
        try:
            self.ref.tell(_Exhausted(exhaustion.limit))
        except Exception:
            log.warning("mission %s could not record its exhaustion promptly", self.mission_id)

    async def _save(self) -> None:
        assert self.scope is not None
        self.state = attrs.evolve(
            self.state, usage=self.scope.usage, updated_at_ms=self.ctx.now_ms()
        )
        await self.ctx.repo.save_mission(self.state)


__all__ = ["MissionSupervisor"]
