"""The spawn pipeline, the same whatever asked for the spawn.

``POST /agent-team/spawn``, the ``spawn_agent`` tool, the mission bridge and an
approved spawn all come here: load the workspace's policy and templates, run
the gate (:mod:`.gate`), check the mission's budget (a message to the mission),
hash the template's skills, resolve the budget, create the child session, and
start the instance under its mission supervisor (a message again), which
records it and starts its actor.

Admission is serialised engine-wide (``admission``): ``max_agents`` and
``max_concurrent`` count instances across every mission, so counting them and
recording the new instance must not interleave with another spawn anywhere, or
two spawns could both see room for one. It is one lock held by the service (not
an actor, and not one lock per key); the mission's own checks run in its mailbox.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import trio

from actors import ActorDead, ActorRef

from ..entities import Ask
from ..errors import SvcError
from ..sessions import CreateSession
from . import events as ev
from .config import TeamConfig, TeamConfigLoader
from .context import RuntimePolicy, TeamsContext, ask, instance_actor_name, mission_actor_name
from .errors import SpawnDenied, TeamConfigInvalid

if TYPE_CHECKING:
    from supervisors import BudgetLimits

    from ..audit.decisions import DecisionSink
    from ..sessions import Session
    from .records import Instance, SpawnRequest
    from .templates import AgentTemplate

R = TypeVar("R")

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


async def runtime_policy(
    loader: TeamConfigLoader, config: TeamConfig | None = None
) -> RuntimePolicy:
    """The parts of the spawn policy running instances apply (strict if it cannot be read)."""
    if config is None:
        try:
            config = await loader.load()
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


def workspace_fields(instance: Instance) -> dict[str, Any]:
    return {
        "workspaceRoot": instance.workspace_root,
        "workspaceRepoRoot": instance.workspace_root,
        "managedWorktree": None,
    }


class Spawner:
    """Runs spawns (see the module docstring); owned by :class:`~.service.TeamsService`."""

    def __init__(self, ctx: TeamsContext, loader: TeamConfigLoader) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.repo = ctx.repo
        self.loader = loader
        self.admission = trio.Lock()
        """Engine-wide: spawn counts are engine-wide (see the module docstring)."""
        self.decision_sink: DecisionSink | None = None
        """Told every spawn decision (set by the incident monitor)."""

    # ------------------------------------------------------------------ entry points
    async def spawn(self, request: SpawnRequest) -> SpawnResult:
        """Spawn an instance, or say why not (queuing it when it needs a human's approval)."""
        try:
            request, parent = await self.resolve(request)
        except SpawnDenied as denied:
            self.publish_request(ev.SPAWN_REQUESTED, request, justification=request.justification)
            return await self._denied(request, denied)
        self.publish_request(ev.SPAWN_REQUESTED, request, justification=request.justification)
        try:
            instance, ref = await self.start(request, parent, approved=False)
        except SpawnDenied as denied:
            return await self._denied(request, denied)
        return await self.success(instance, ref)

    async def resolve(self, request: SpawnRequest) -> tuple[SpawnRequest, Instance | None]:
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
        if self.decision_sink is not None:
            self.decision_sink(
                domain="spawn_gate",
                effect="approval_required" if denied.code == APPROVAL_CODE else "deny",
                subject=f"role:{request.role}",
                actor_id=request.parent_instance_id,
                scope_id=request.mission_id,
                code=denied.code,
                approval_id=body.get("approvalID"),
            )
        self.publish_request(
            ev.SPAWN_DENIED,
            request,
            code=denied.code,
            error=denied.message,
            requiresUserApproval=denied.requires_approval,
            approvalID=body.get("approvalID"),
        )
        return SpawnResult(False, body)

    async def success(self, instance: Instance, ref: ActorRef) -> SpawnResult:
        from .messages import DescribeInstance

        try:
            view = await ask(ref, DescribeInstance())
            run_id, status = view.run_id, view.status
        except ActorDead:
            # Ended already (its first task could not start): its record says how.
            record = await self.repo.get_instance(instance.id) or instance
            run_id, status = record.run_id, record.status
        if self.decision_sink is not None:
            self.decision_sink(
                domain="spawn_gate",
                effect="allow",
                subject=f"role:{instance.role}",
                actor_id=instance.parent_instance_id,
                scope_id=instance.mission_id,
            )
        body = {
            "ok": True,
            "missionID": instance.mission_id,
            "instanceID": instance.id,
            "sessionID": instance.session_id,
            "runID": run_id,
            "status": status,
            "skillHash": instance.skill_hash,
            **workspace_fields(instance),
        }
        return SpawnResult(True, body, instance)

    # ------------------------------------------------------------------ the pipeline
    async def start(
        self, request: SpawnRequest, parent: Instance | None, *, approved: bool
    ) -> tuple[Instance, ActorRef]:
        """Admit, record and start the instance; SpawnDenied says why not."""
        from .budgets import resolve_budget
        from .gate import decide
        from .messages import CheckMission
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
        async with self.admission:
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
            spent = await self.ask_mission(mission_id, CheckMission(policy.mission_limits()))
            if spent:
                raise SpawnDenied("spawn_mission_budget_exceeded", str(spent))
            home = self.engine.settings.environ.get("HOME")
            skill_hash = await trio.to_thread.run_sync(
                lambda: compute_skill_hash(
                    template.skills,
                    policy.skill_sources,
                    workspace=self.engine.workspace,
                    home=Path(home) if home else None,
                    state_dir=self.engine.state_dir,
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
            ref = await self._start(mission_id, instance, request, config)
        return instance, ref

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
        """The instance's session, carrying the instance's identity from its creation (the
        instance binds it to its budget and gates when its actor starts)."""
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
    ) -> ActorRef:
        from .messages import StartInstance

        assert config.policy is not None
        message = StartInstance(
            instance=instance,
            runtime=await runtime_policy(self.loader, config),
            limits=config.policy.mission_limits(),
            prompt=request.prompt,
            spawned_by=request,
        )
        return await self.ask_mission(mission_id, message)

    async def ask_mission(self, mission_id: str, message: Ask[R]) -> R:
        """Ask the mission's supervisor (activating it); one that just stopped is activated
        again."""
        for _ in range(3):
            mission = await self.engine.actors.get_or_spawn(mission_actor_name(mission_id))
            try:
                return await ask(mission, message)
            except ActorDead:
                # It stopped (its last instance ended) just before our message
                # arrived; the next get_or_spawn starts a fresh incarnation.
                continue
        raise SpawnDenied("spawn_failed", f"mission {mission_id} is restarting; retry the spawn")

    async def _remaining(self, parent: Instance) -> BudgetLimits:
        from .budgets import remaining_from
        from .messages import GetRemaining

        ref = self.engine.actors.lookup(instance_actor_name(parent.mission_id, parent.id))
        if ref is not None:
            try:
                return await ask(ref, GetRemaining())
            except ActorDead:
                pass  # it ended meanwhile: its record has its final usage
        # Read again: the parent may have recorded its final usage since the spawn began.
        parent = await self.repo.get_instance(parent.id) or parent
        return remaining_from(parent.budget, parent.usage_or_zero)

    # ------------------------------------------------------------------ events
    def publish_request(self, type: str, request: SpawnRequest, **extra: Any) -> None:
        from .records import DEFAULT_MISSION

        self.ctx.events.publish(
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


__all__ = ["SpawnResult", "Spawner", "runtime_policy", "workspace_fields"]
