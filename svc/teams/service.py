"""TeamsService (``engine.teams``): the agent-team facade for routes, tools and other domains.

Spawning goes through one pipeline whatever asked for it (``POST
/agent-team/spawn``, the ``spawn_agent`` tool, the mission bridge, an
approved spawn): load the workspace's policy and templates, run the gate
(:mod:`.gate`), check the mission's budget, hash the template's skills,
resolve the budget, create the child session, and start the instance under
its mission supervisor. Spawns are serialised, so ``max_agents`` and
``max_concurrent`` are exact.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import attrs
import trio

from actors import ActorDead, ActorRef

from ..entities import EntityKind, ask_ref
from ..errors import SvcError
from ..sessions import CreateSession
from . import events as ev
from .config import TeamConfig, TeamConfigLoader
from .context import ACTOR_PREFIX, RuntimePolicy, TeamsContext, mission_actor_name
from .errors import (
    ApprovalNotFound,
    InstanceNotFound,
    InstanceNotRunning,
    SpawnDenied,
    TeamConfigInvalid,
    TemplateNotFound,
)
from .events import TeamEvents
from .repository import TeamsRepository
from .schema import TERMINAL

if TYPE_CHECKING:
    from supervisors import BudgetLimits

    from ..engine import Engine
    from ..sessions import RunRequest, RunStarted, Session
    from .mission import MissionSupervisor, StartedInstance
    from .records import Instance, SpawnRequest
    from .templates import AgentTemplate

# Imported on first use: start-up on a fresh store spawns nothing, so the gate, the
# actors, the records and the template files load with the first request that needs
# them (docs/architecture.md, "Start-up budget").

log = logging.getLogger("svc.teams")

END_WAIT_S = 15.0
"""How long a cancel waits for the instances it cancelled to record their end."""


_FAILURE_STATUS = {"INSTANCE_NOT_FOUND": 404, "spawn_failed": 503, "spawn_session_failed": 500}


@attrs.frozen
class SpawnResult:
    ok: bool
    body: dict[str, Any]
    instance: Instance | None = None

    @property
    def status(self) -> int:
        """The HTTP status: 200 for a success and for a spawn queued for approval; a policy
        refusal is 403, a missing parent 404, a mission that is restarting 503."""
        if self.ok or self.body.get("requiresUserApproval"):
            return 200
        return _FAILURE_STATUS.get(self.body.get("code", ""), 403)


class TeamsService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.repo = TeamsRepository(engine.store)
        self.events = TeamEvents(engine.events, engine.clock)
        self.loader = TeamConfigLoader(lambda: engine.workspace)
        self.ctx = TeamsContext(
            engine=engine, repo=self.repo, events=self.events, on_instance_live=self._instance_live
        )
        self._spawn_lock = trio.Lock()
        self._live: dict[str, ActorRef] = {}
        self._live_sessions: dict[str, str] = {}

    # ------------------------------------------------------------------ engine wiring
    def install(self) -> None:
        """Lazy activation of mission supervisors under the engine's ``teams`` supervisor, and
        the claim on instance sessions' prompts."""
        self.engine.entities.register(
            EntityKind(
                ACTOR_PREFIX,
                "teams",
                lambda mission_id: SpawnDenied("spawn_failed", f"mission {mission_id} not found"),
            ),
            self._activate_mission,
        )
        self.engine.sessions.add_prompt_delegate(self._delegate_prompt)

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
                await self._mission(mission_id)
            except Exception:
                log.exception("could not restore agent-team mission %s", mission_id)
        return restored

    async def _settle_interrupted(self, instance: Instance) -> bool:
        run = await self.engine.sessions.repo.get_run(instance.run_id)
        if run is None or run.status == "running":
            return False
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
            **_workspace(settled),
        )
        return True

    def _instance_live(self, instance_id: str, session_id: str, ref: ActorRef | None) -> None:
        if ref is None:
            self._live.pop(instance_id, None)
            self._live_sessions.pop(session_id, None)
        else:
            self._live[instance_id] = ref
            self._live_sessions[session_id] = instance_id

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
        return MissionSupervisor(self.ctx, state, await self._runtime_policy())

    async def _mission(self, mission_id: str) -> ActorRef:
        return await self.engine.actors.get_or_spawn(mission_actor_name(mission_id))

    async def _runtime_policy(self, config: TeamConfig | None = None) -> RuntimePolicy:
        if config is None:
            try:
                config = await self.loader.load()
            except TeamConfigInvalid:
                # An unreadable policy must not quietly lift approval requirements.
                return RuntimePolicy(push_requires_approval=True)
        policy = config.policy
        if policy is None:
            return RuntimePolicy()
        return RuntimePolicy(
            push_requires_approval=policy.push_requires_approval,
            cost_per_1k_tokens_usd=policy.cost_per_1k_tokens_usd,
        )

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
        try:
            request, parent = await self._resolve(request)
        except SpawnDenied as denied:
            self._publish_request(ev.SPAWN_REQUESTED, request, justification=request.justification)
            return await self._denied(request, denied)
        self._publish_request(ev.SPAWN_REQUESTED, request, justification=request.justification)
        try:
            instance, started = await self._spawn(request, parent, approved=False)
        except SpawnDenied as denied:
            return await self._denied(request, denied)
        return self._success(instance, started)

    async def _resolve(self, request: SpawnRequest) -> tuple[SpawnRequest, Instance | None]:
        """The request with its mission settled (the parent's, else the default) and its parent."""
        from .records import DEFAULT_MISSION

        parent: Instance | None = None
        if request.parent_instance_id:
            parent = await self.repo.get_instance(request.parent_instance_id)
            if parent is None:
                raise SpawnDenied(
                    "INSTANCE_NOT_FOUND",
                    f"parent instance {request.parent_instance_id} not found",
                    instanceID=request.parent_instance_id,
                )
            if request.mission_id and request.mission_id != parent.mission_id:
                raise SpawnDenied(
                    "spawn_parent_mission_mismatch",
                    f"parent instance {parent.id} belongs to mission {parent.mission_id}",
                )
        mission_id = request.mission_id or (parent.mission_id if parent else DEFAULT_MISSION)
        return attrs.evolve(request, mission_id=mission_id), parent

    async def _denied(self, request: SpawnRequest, denied: SpawnDenied) -> SpawnResult:
        from .records import APPROVAL_CODE, SpawnApproval

        body: dict[str, Any] = {
            "ok": False,
            "code": denied.code,
            "error": denied.message,
            "requiresUserApproval": denied.requires_approval,
        }
        extra = {k: v for k, v in denied.extra.items() if k not in ("ok", "requiresUserApproval")}
        if denied.code == APPROVAL_CODE:
            approval = SpawnApproval(
                id=f"spawn_{uuid.uuid4().hex}",
                request=request,
                decision_code=denied.code,
                reason=denied.message,
                created_at_ms=self.engine.clock.now_ms(),
            )
            await self.repo.add_approval(approval)
            body["approvalID"] = approval.id
            extra["approvalID"] = approval.id
        body.update({k: v for k, v in extra.items() if k not in body})
        self._publish_request(
            ev.SPAWN_DENIED,
            request,
            code=denied.code,
            error=denied.message,
            requiresUserApproval=denied.requires_approval,
            approvalID=body.get("approvalID"),
        )
        return SpawnResult(False, body)

    def _success(self, instance: Instance, started: StartedInstance) -> SpawnResult:
        actor = started.actor
        run_id = actor.active.run.id if actor.active is not None else None
        body = {
            "ok": True,
            "missionID": instance.mission_id,
            "instanceID": instance.id,
            "sessionID": instance.session_id,
            "runID": run_id,
            "status": actor.instance.status,
            "skillHash": instance.skill_hash,
            **_workspace(instance),
        }
        return SpawnResult(True, body, instance)

    async def _spawn(
        self, request: SpawnRequest, parent: Instance | None, *, approved: bool
    ) -> tuple[Instance, StartedInstance]:
        from .budgets import resolve_budget
        from .gate import decide
        from .mission import CheckMission
        from .records import DEFAULT_MISSION
        from .skills import compute_skill_hash

        try:
            config = await self.loader.load()
        except TeamConfigInvalid as exc:
            fields = {
                k: v for k, v in exc.extra.items() if k in ("file", "line", "column", "field")
            }
            raise SpawnDenied(
                "spawn_policy_missing", f"spawn policy load failed: {exc.message}", **fields
            ) from None
        mission_id = request.mission_id or DEFAULT_MISSION
        parent_role = request.parent_role or (parent.role if parent else None)
        async with self._spawn_lock:
            counts = await self.repo.counts()
            policy, template = decide(
                config, request, parent_role=parent_role, counts=counts, approved=approved
            )
            if request.template_id and template.template_id != request.template_id:
                raise SpawnDenied(
                    "spawn_template_not_found",
                    f"template `{request.template_id}` not found",
                    templateID=request.template_id,
                )
            if template.role != request.role:
                raise SpawnDenied(
                    "spawn_template_role_mismatch",
                    f"template `{template.template_id}` is for role `{template.role}`, "
                    f"not `{request.role}`",
                    templateID=template.template_id,
                )
            spent = await self._ask_mission(mission_id, CheckMission(policy.mission_limits()))
            if spent:
                raise SpawnDenied("spawn_mission_budget_exceeded", str(spent))
            home = self.engine.settings.environ.get("HOME")
            skill_hash = await trio.to_thread.run_sync(
                lambda: compute_skill_hash(
                    template.skills,
                    policy.skill_sources,
                    workspace=self.engine.workspace,
                    home=Path(home) if home else None,
                )
            )
            budget = resolve_budget(
                policy,
                request.role,
                template.default_budget.limits() if template.default_budget else None,
                request.budget_override,
                parent_remaining=await self._remaining(parent) if parent else None,
            )
            instance = await self._new_instance(request, template, budget, skill_hash, parent)
            started = await self._start(mission_id, instance, request, config)
        return instance, started

    async def _new_instance(
        self,
        request: SpawnRequest,
        template: AgentTemplate,
        budget: BudgetLimits,
        skill_hash: str,
        parent: Instance | None,
    ) -> Instance:
        from .records import DEFAULT_MISSION, Instance

        instance_id = f"ins_{uuid.uuid4().hex}"
        try:
            session = await self._child_session(request, template, instance_id, parent)
        except SvcError as exc:
            raise SpawnDenied(
                "spawn_session_failed", f"failed creating child session: {exc.message}"
            ) from None
        now = self.engine.clock.now_ms()
        return Instance(
            id=instance_id,
            mission_id=request.mission_id or DEFAULT_MISSION,
            role=template.role,
            template_id=template.template_id,
            session_id=session.id,
            status="running",
            budget=budget,
            skill_hash=skill_hash,
            capabilities=template.capabilities,
            source=request.source,
            justification=request.justification,
            workspace_root=session.directory,
            created_at_ms=now,
            updated_at_ms=now,
            parent_instance_id=parent.id if parent else None,
            prompt=request.prompt,
            system_prompt=template.system_prompt,
        )

    async def _child_session(
        self,
        request: SpawnRequest,
        template: AgentTemplate,
        instance_id: str,
        parent: Instance | None,
    ) -> Session:
        model = template.default_model
        return await self.engine.sessions.create(
            CreateSession(
                title=f"Agent Team {template.template_id}",
                directory=str(self.engine.workspace),
                parent_id=parent.session_id if parent else request.calling_session_id,
                provider_id=model.provider_id if model else None,
                model_id=model.model_id if model else None,
                source_kind="agent_team",
                source_metadata={
                    "missionID": request.mission_id,
                    "instanceID": instance_id,
                    "role": template.role,
                    "templateID": template.template_id,
                },
            )
        )

    async def _start(
        self, mission_id: str, instance: Instance, request: SpawnRequest, config: TeamConfig
    ) -> StartedInstance:
        from .mission import StartInstance

        assert config.policy is not None
        message = StartInstance(
            instance=instance,
            runtime=await self._runtime_policy(config),
            limits=config.policy.mission_limits(),
            prompt=request.prompt,
            spawned_by=request,
        )
        return await self._ask_mission(mission_id, message)  # type: ignore[return-value]

    async def _ask_mission(self, mission_id: str, message: object) -> object:
        """Ask the mission's supervisor (activating it); one that just stopped is activated again."""
        for _ in range(3):
            mission = await self._mission(mission_id)
            try:
                return await ask_ref(mission, message)
            except ActorDead:
                # It stopped (its last instance ended) just before our message
                # arrived; the next get_or_spawn starts a fresh incarnation.
                continue
        raise SpawnDenied("spawn_failed", f"mission {mission_id} is restarting; retry the spawn")

    async def _remaining(self, parent: Instance) -> BudgetLimits:
        from .budgets import remaining_from
        from .instance import GetRemaining

        ref = self._live.get(parent.id)
        if ref is not None:
            try:
                return await ask_ref(ref, GetRemaining())  # type: ignore[return-value]
            except ActorDead:
                pass  # it ended meanwhile: its record has its final usage
        # Read again: the parent may have recorded its final usage since the spawn began.
        parent = await self.repo.get_instance(parent.id) or parent
        return remaining_from(parent.budget, parent.usage_or_zero)

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
            request, parent = await self._resolve(approval.request)
            instance, started = await self._spawn(request, parent, approved=True)
        except SpawnDenied as denied:
            self._publish_request(
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
        success = self._success(instance, started)
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
        self._publish_request(
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
        from .instance import PromptInstance

        instance = await self.instance(instance_id)
        ref = self._live.get(instance_id)
        if instance.terminal or ref is None:
            raise InstanceNotRunning(instanceID=instance_id, instanceStatus=instance.status)
        try:
            return await ask_ref(ref, PromptInstance(request))  # type: ignore[return-value]
        except ActorDead:
            raise InstanceNotRunning(
                instanceID=instance_id, instanceStatus=(await self.instance(instance_id)).status
            ) from None

    async def _delegate_prompt(self, session_id: str, request: RunRequest) -> RunStarted | None:
        # A request that brings its own budget is already governed (the
        # instance itself starts its runs that way); anything else on an
        # instance's session is run as the instance.
        if request.budget is not None:
            return None
        instance_id = self._live_sessions.get(session_id)
        if instance_id is None:
            return None
        ref = self._live.get(instance_id)
        if ref is None:
            return None
        from .instance import PromptInstance

        try:
            return await ask_ref(ref, PromptInstance(request))  # type: ignore[return-value]
        except ActorDead:
            return None

    async def cancel_instance(self, instance_id: str, reason: str | None = None) -> Instance:
        """Cancel a running instance (its scope, and so its run); an ended one is returned as it is."""
        instance = await self.instance(instance_id)
        if instance.terminal:
            return instance
        reason = reason or "cancelled by user"
        ref = self._live.get(instance_id)
        if ref is not None:
            from .instance import CancelInstance

            try:
                ended: trio.Event = await ask_ref(ref, CancelInstance(reason))  # type: ignore[assignment]
                with trio.move_on_after(END_WAIT_S):
                    await ended.wait()
            except ActorDead:
                pass  # it ended on its own meanwhile
            return await self.instance(instance_id)
        return await self._cancel_orphan(instance, reason)

    async def _cancel_orphan(self, instance: Instance, reason: str) -> Instance:
        """A 'running' instance without an actor (its mission could not be restored): record the end."""
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
            **_workspace(cancelled),
        )
        return cancelled

    async def cancel_mission(self, mission_id: str, reason: str) -> int:
        """Cancel every running instance of the mission (one cancel of the mission's scope);
        returns how many were running."""
        cancelled = 0
        ref = self.engine.actors.lookup(mission_actor_name(mission_id))
        if ref is not None:
            from .mission import CancelMission

            try:
                ended: list[trio.Event] = await ask_ref(ref, CancelMission(reason))  # type: ignore[assignment]
            except ActorDead:
                ended = []
            with trio.move_on_after(END_WAIT_S):
                for event in ended:
                    await event.wait()
            cancelled = len(ended)
        for orphan in await self.repo.instances(mission_id=mission_id, status="running"):
            if orphan.id not in self._live:
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
        """``mission_started``: one spawn per work item with an ``assigned_agent`` (its role), as the
        mission's orchestrator. Returns one ``orchestratorSpawns`` row per such item."""
        from .bridge import work_item_spawns

        return await work_item_spawns(self.spawn, mission_id, work_items)

    # ------------------------------------------------------------------ events
    def _publish_request(self, type: str, request: SpawnRequest, **extra: Any) -> None:
        from .records import DEFAULT_MISSION

        self.events.publish(
            type,
            session_id=request.calling_session_id,
            message_id=request.calling_message_id,
            mission_id=request.mission_id or DEFAULT_MISSION,
            parentInstanceID=request.parent_instance_id,
            source=request.source,
            requestedRole=request.role,
            templateID=request.template_id,
            **extra,
        )

    def _publish_for(self, instance: Instance, type: str, **extra: Any) -> None:
        self.events.publish(
            type,
            session_id=instance.session_id,
            run_id=instance.run_id,
            mission_id=instance.mission_id,
            instance_id=instance.id,
            **extra,
        )


def _workspace(instance: Instance) -> dict[str, Any]:
    return {
        "workspaceRoot": instance.workspace_root,
        "workspaceRepoRoot": instance.workspace_root,
        "managedWorktree": None,
    }


__all__ = ["TERMINAL", "SpawnResult", "TeamsService"]
