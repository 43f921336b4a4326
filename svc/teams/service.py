"""TeamsService (``engine.teams``): the agent-team facade for routes, tools and other domains.

Spawning is :mod:`.spawner`'s pipeline. Everything else that touches a running
mission or instance is a message to its actor (docs/teams.md, "Message flow"):
the service finds an instance's actor by its name (``team/<mission>/<instance>``)
and holds no index of live actors; sessions never call into teams (an
instance binds its session to itself as it starts, :mod:`.binding`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import attrs
import trio

from actors import ActorDead, ActorRef

from ..entities import EntityKind
from . import events as ev
from .config import TeamConfigLoader
from .context import ACTOR_PREFIX, TeamsContext, ask, instance_actor_name, mission_actor_name
from .errors import (
    ApprovalNotFound,
    InstanceNotFound,
    InstanceNotRunning,
    SpawnDenied,
    TemplateNotFound,
)
from .events import TeamEvents
from .repository import TeamsRepository
from .schema import TERMINAL
from .spawner import Spawner, SpawnResult, runtime_policy, workspace_fields

if TYPE_CHECKING:
    from ..engine import Engine
    from ..sessions import RunRequest, RunStarted
    from .mission import MissionSupervisor
    from .records import Instance, SpawnRequest
    from .schema import InstanceStatus
    from .templates import AgentTemplate

# Imported on first use: start-up on a fresh store spawns nothing, so the gate, the
# actors, the records and the template files load with the first request that needs
# them (docs/architecture.md, "Start-up budget").

log = logging.getLogger("svc.teams")

END_WAIT_S = 15.0
"""How long a cancel waits for the instances it cancelled to record their end."""


class TeamsService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.repo = TeamsRepository(engine.store)
        self.events = TeamEvents(engine.events, engine.clock)
        self.loader = TeamConfigLoader(lambda: engine.workspace)
        self.ctx = TeamsContext(engine=engine, repo=self.repo, events=self.events)
        self.spawner = Spawner(self.ctx, self.loader)

    # ------------------------------------------------------------------ engine wiring
    def install(self) -> None:
        """Lazy activation of mission supervisors under the engine's ``teams`` supervisor."""
        self.engine.entities.register(
            EntityKind(
                ACTOR_PREFIX,
                "teams",
                lambda mission_id: SpawnDenied("spawn_failed", f"mission {mission_id} not found"),
            ),
            self._activate_mission,
        )

    async def recover(self) -> int:
        """At start-up: settle instances whose run ended while the engine was down; restart the
        missions that still have running instances. Returns how many instances run again."""
        running = await self.repo.instances(status="running")
        missions: set[str] = set()
        restored = 0
        for instance in running:
            if instance.run_id is not None and await self._settle_interrupted(instance):
                continue
            missions.add(instance.mission_id)
            restored += 1
        for mission_id in sorted(missions):
            try:
                await self.engine.actors.get_or_spawn(mission_actor_name(mission_id))
            except Exception:
                log.exception("could not restore agent-team mission %s", mission_id)
        return restored

    async def _settle_interrupted(self, instance: Instance) -> bool:
        if instance.run_id is None:
            return False
        run = await self.engine.sessions.repo.get_run(instance.run_id)
        if run is None or run.status == "running":
            return False
        status: InstanceStatus
        if run.status == "completed":
            status, reason = "completed", None
        else:
            status = "failed"
            reason = run.error_message or "the engine stopped while the instance's run was active"
        now = self.engine.clock.now_ms()
        settled = attrs.evolve(
            instance, status=status, reason=reason, updated_at_ms=now, ended_at_ms=now
        )
        await self.repo.save_instance(settled)
        self._publish_for(
            settled,
            ev.ENDED_EVENTS[status],
            parentInstanceID=settled.parent_instance_id,
            role=settled.role,
            status=status,
            reason=reason,
            **workspace_fields(settled),
        )
        return True

    async def _activate_mission(self, name: str) -> MissionSupervisor | None:
        rest = name[len(ACTOR_PREFIX) :]
        if "/" in rest:
            return None  # instance actors are started by their mission, never lazily
        from .mission import MissionSupervisor
        from .records import MissionState, usage_from_wire

        mission_id = unquote(rest)
        now = self.engine.clock.now_ms()
        state = await self.repo.mission(mission_id) or MissionState(
            id=mission_id, usage=usage_from_wire(None), created_at_ms=now, updated_at_ms=now
        )
        return MissionSupervisor(self.ctx, state, await runtime_policy(self.loader))

    def _instance_ref(self, instance: Instance) -> ActorRef | None:
        """The instance's running actor, if any."""
        return self.engine.actors.lookup(instance_actor_name(instance.mission_id, instance.id))

    # ------------------------------------------------------------------ templates
    async def templates(self) -> list[AgentTemplate]:
        config = await self.loader.load()
        return [config.templates[tid] for tid in sorted(config.templates)]

    async def save_template(self, template: AgentTemplate) -> AgentTemplate:
        from .templates import write_template

        config = await self.loader.load()
        path = config.file_for(template.template_id)
        await trio.to_thread.run_sync(write_template, path, template)
        self.loader.invalidate()
        return template

    async def template(self, template_id: str) -> AgentTemplate:
        config = await self.loader.load()
        template = config.templates.get(template_id)
        if template is None:
            raise TemplateNotFound(templateID=template_id)
        return template

    async def delete_template(self, template_id: str) -> None:
        config = await self.loader.load()
        if template_id not in config.templates:
            raise TemplateNotFound(templateID=template_id)
        await trio.to_thread.run_sync(lambda: config.files[template_id].unlink(missing_ok=True))
        self.loader.invalidate()

    # ------------------------------------------------------------------ spawning
    async def spawn(self, request: SpawnRequest) -> SpawnResult:
        """Spawn an instance, or say why not (queuing it when it needs a human's approval)."""
        return await self.spawner.spawn(request)

    # ------------------------------------------------------------------ approvals
    async def approvals(self) -> dict[str, Any]:
        """Queued spawn approvals and the pending tool approvals of instances' sessions."""
        from .approvals import approvals_listing

        pending = await self.engine.permissions.requests(status="pending", limit=10_000)
        instances = await self.repo.instances() if pending else []
        return approvals_listing(await self.repo.approvals(), pending, instances)

    async def approve(self, approval_id: str, reason: str | None = None) -> SpawnResult:
        """Spawn a queued request; every check but the approval requirement applies again."""
        approval = await self.repo.take_approval(approval_id)
        if approval is None:
            raise ApprovalNotFound(approvalID=approval_id)
        try:
            request, parent = await self.spawner.resolve(approval.request)
            instance, ref = await self.spawner.start(request, parent, approved=True)
        except SpawnDenied as denied:
            self.spawner.publish_request(
                ev.SPAWN_DENIED,
                approval.request,
                code=denied.code,
                error=denied.message,
                requiresUserApproval=False,
                approvalID=approval_id,
            )
            return SpawnResult(
                False,
                {
                    "ok": False,
                    "code": denied.code,
                    "error": denied.message,
                    "requiresUserApproval": False,
                    "approvalID": approval_id,
                },
            )
        success = await self.spawner.success(instance, ref)
        body = {
            "ok": True,
            "approvalID": approval_id,
            "decision": "approved",
            "reason": reason or "approved by user",
            **{k: v for k, v in success.body.items() if k != "ok"},
        }
        return SpawnResult(True, body, instance)

    async def deny(self, approval_id: str, reason: str | None = None) -> dict[str, Any]:
        approval = await self.repo.take_approval(approval_id)
        if approval is None:
            raise ApprovalNotFound(approvalID=approval_id)
        reason = reason or "denied by user"
        self.spawner.publish_request(
            ev.SPAWN_DENIED,
            approval.request,
            code=approval.decision_code,
            error=reason,
            requiresUserApproval=False,
            approvalID=approval_id,
            decision="denied",
        )
        return {"ok": True, "approvalID": approval_id, "decision": "denied", "reason": reason}

    # ------------------------------------------------------------------ instances
    async def instances(
        self,
        *,
        mission_id: str | None = None,
        parent_instance_id: str | None = None,
        status: str | None = None,
    ) -> list[Instance]:
        return await self.repo.instances(
            mission_id=mission_id, parent_instance_id=parent_instance_id, status=status
        )

    async def instance(self, instance_id: str) -> Instance:
        instance = await self.repo.get_instance(instance_id)
        if instance is None:
            raise InstanceNotFound(instanceID=instance_id)
        return instance

    async def prompt(self, instance_id: str, request: RunRequest) -> RunStarted:
        """Start a run of the instance (its budget, tool lists, gate and system prompt applied)."""
        from .messages import PromptInstance

        instance = await self.instance(instance_id)
        ref = None if instance.terminal else self._instance_ref(instance)
        if ref is None:
            raise InstanceNotRunning(instanceID=instance_id, instanceStatus=instance.status)
        try:
            return await ask(ref, PromptInstance(request))
        except ActorDead:
            raise InstanceNotRunning(
                instanceID=instance_id, instanceStatus=(await self.instance(instance_id)).status
            ) from None

    async def cancel_instance(self, instance_id: str, reason: str | None = None) -> Instance:
        """Cancel a running instance (its scope, and so its run); an ended one is returned as
        it is."""
        instance = await self.instance(instance_id)
        if instance.terminal:
            return instance
        reason = reason or "cancelled by user"
        ref = self._instance_ref(instance)
        if ref is None:
            return await self._cancel_orphan(instance, reason)
        from .messages import CancelInstance

        try:
            await ask(ref, CancelInstance(reason))
            await self._wait_ended([ref])
        except ActorDead:
            pass  # it ended on its own meanwhile
        return await self.instance(instance_id)

    async def _wait_ended(self, refs: Sequence[ActorRef]) -> None:
        """Wait (bounded) until cancelled instances have recorded their end and stopped."""
        with trio.move_on_after(END_WAIT_S):
            for ref in refs:
                await ref.wait_stopped()

    async def _cancel_orphan(self, instance: Instance, reason: str) -> Instance:
        """A 'running' instance without an actor (its mission could not be restored): record
        the end."""
        now = self.engine.clock.now_ms()
        cancelled = attrs.evolve(
            instance, status="cancelled", reason=reason, updated_at_ms=now, ended_at_ms=now
        )
        await self.repo.save_instance(cancelled)
        self._publish_for(
            cancelled,
            ev.INSTANCE_CANCELLED,
            parentInstanceID=cancelled.parent_instance_id,
            role=cancelled.role,
            status="cancelled",
            reason=reason,
            **workspace_fields(cancelled),
        )
        return cancelled

    async def cancel_mission(self, mission_id: str, reason: str) -> int:
        """Cancel every running instance of the mission (one cancel of the mission's scope);
        returns how many were running."""
        cancelled = 0
        ref = self.engine.actors.lookup(mission_actor_name(mission_id))
        if ref is not None:
            from .messages import CancelMission

            try:
                running = await ask(ref, CancelMission(reason))
            except ActorDead:
                running = []
            refs = [
                r
                for instance_id in running
                if (r := self.engine.actors.lookup(instance_actor_name(mission_id, instance_id)))
            ]
            await self._wait_ended(refs)
            cancelled = len(running)
        for orphan in await self.repo.instances(mission_id=mission_id, status="running"):
            if self._instance_ref(orphan) is None:
                await self._cancel_orphan(orphan, reason)
                cancelled += 1
        return cancelled

    # ------------------------------------------------------------------ missions
    async def missions(self) -> list[dict[str, Any]]:
        """Mission rollups (SPEC §2.5), one per mission with instances or queued spawns."""
        from .rollups import mission_rollups

        return mission_rollups(*await self.repo.rollup_rows())

    # ------------------------------------------------------------------ the mission bridge
    async def spawn_for_work_items(
        self, mission_id: str, work_items: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """``mission_started``: one spawn per work item with an ``assigned_agent`` (its role),
        as the mission's orchestrator. Returns one ``orchestratorSpawns`` row per such item."""
        from .bridge import work_item_spawns

        return await work_item_spawns(self.spawn, mission_id, work_items)

    # ------------------------------------------------------------------ events
    def _publish_for(self, instance: Instance, type: str, **extra: Any) -> None:
        self.events.publish(
            type,
            session_id=instance.session_id,
            run_id=instance.run_id,
            mission_id=instance.mission_id,
            instance_id=instance.id,
            **extra,
        )


__all__ = ["TERMINAL", "SpawnResult", "TeamsService"]
