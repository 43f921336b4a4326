"""The InstanceActor: one agent instance, its budget scope, and the runs it governs.

The instance's :class:`~supervisors.BudgetScope` is a child of its mission's.
As the actor starts it binds its session (:mod:`.binding`): every run of that
session, whoever prompts it, runs with the instance's scope as its parent
budget, the template's tool lists as its registry view and the capability
gate, so each token, step, tool call, second and dollar the run spends is
charged to the instance and its mission as it happens.

The actor's life is one ``with scope:`` block (:meth:`InstanceActor._life`). It
ends when the instance's run completes or fails, or when the scope ends:
cancelled (by a user, or with its mission), exhausted (its own limit, or its
deadline), or cancelled by an exhausted mission. Nothing polls: exhaustion and
cancellation cancel the trio scopes of the instance and of its run together,
and the actor then waits for the run to record its end, records its own,
announces it, and stops.

The actor learns about runs from its session's events (:mod:`.watch`): a run
started, a run finished, usage charged, a tool refused by the view. The watcher
turns them into messages to the actor itself, so every change of the actor's
state and every write of its record happens in its mailbox, one at a time.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import attrs
import trio

from actors import Actor, ActorDead, ActorRef, AskTimeout, MailboxFull
from supervisors import BudgetScope, BudgetUsage, Exhaustion

from ..errors import SvcError
from ..events import EventStream
from ..sessions import RunRequest, RunStarted
from . import events as ev
from .binding import capability_gate, instance_binding
from .context import RUN_STOP_GRACE_S, RuntimePolicy, TeamsContext
from .errors import InstanceNotRunning
from .messages import (
    CancelInstance,
    DescribeInstance,
    GetRemaining,
    InstanceEnded,
    InstanceView,
    PromptInstance,
)
from .records import Instance, SpawnRequest, limits_to_wire, usage_to_wire
from .watch import (
    Finish,
    RunBegan,
    RunEnded,
    SaveUsage,
    Verdict,
    follow_session,
    watch_session,
)

if TYPE_CHECKING:
    from ..sessions import SessionBinding

log = logging.getLogger("svc.teams")

FINISH_ASK_S = 60.0
"""Bound on the life task's wait for the mailbox to record the end (a prompt may be in it)."""


class InstanceActor(Actor):
    mailbox_size = 64

    def __init__(
        self,
        ctx: TeamsContext,
        instance: Instance,
        *,
        mission_scope: BudgetScope,
        mission: ActorRef | None,
        runtime: RuntimePolicy,
        prompt: str | None = None,
        spawned_by: SpawnRequest | None = None,
    ) -> None:
        self.ctx = ctx
        self.instance = instance
        self.mission_scope = mission_scope
        self.mission = mission
        """The mission supervisor, told when this instance has ended."""
        self.runtime = runtime
        self.prompt = prompt
        self.spawned_by = spawned_by
        """The request of a fresh spawn (announced when the instance starts); None when restored."""
        self.scope: BudgetScope | None = None
        self.binding: SessionBinding | None = None
        self.run_id: str | None = None
        """The run the instance follows (the latest started on its session)."""
        self.run_done = trio.Event()
        self._seen_runs: set[str] = set()
        self._settled = trio.Event()
        self._outcome: Verdict | None = None
        self._ending = False
        """The scope has ended: no new runs; the end is being recorded."""
        self._ended = False
        self.usage_save_pending = False
        self._stream: EventStream | None = None
        self.gate = capability_gate(ctx, instance, runtime)

    # ------------------------------------------------------------------ lifecycle
    async def started(self) -> None:
        instance = self.instance
        self.scope = BudgetScope(
            instance.budget,
            name=f"instance/{instance.id}",
            parent=self.mission_scope,
            on_exhausted=self._on_exhausted,
            initial_usage=instance.usage,
        )
        self.binding = instance_binding(instance, self.scope, self.gate)
        self.ctx.engine.sessions.bind(instance.session_id, self.binding)
        # The stream's cursor is fixed now, before any run starts, so the
        # watcher sees every event of every run of this instance.
        self._stream = watch_session(self.ctx.engine.events, instance.session_id)
        self.nursery.start_soon(self._watch)
        self.nursery.start_soon(self._life)
        if self.spawned_by is not None:
            self._announce_spawn(self.spawned_by)
        else:
            # Supervised again after an engine restart or a crash.
            self._announce_started(restored=True)
        if self.prompt:
            try:
                await self._prompt(RunRequest(parts=({"type": "text", "text": self.prompt},)))
            except SvcError as exc:
                # The task could not even start (no model configured, ...): the instance fails.
                self._settle(Verdict("failed", exc.message))

    async def receive(self, message: object) -> object:
        match message:
            case PromptInstance(request=request):
                return await self._prompt(request)
            case CancelInstance(reason=reason):
                self.cancel(reason)
                return None
            case GetRemaining():
                assert self.scope is not None
                return self.scope.remaining()
            case DescribeInstance():
                return InstanceView(run_id=self.run_id, status=self.instance.status)
            case RunBegan(run_id=run_id):
                await self._follow(run_id)
                return None
            case RunEnded():
                self._run_ended(message)
                return None
            case SaveUsage():
                self.usage_save_pending = False
                if not self._ending:
                    await self._save_usage()
                    self._publish(ev.BUDGET_USAGE, **usage_to_wire(self.instance.usage_or_zero))
                return None
            case Finish():
                await self._finish()
                return None
        raise TypeError(f"instance actor cannot handle {type(message).__name__}")

    async def stopped(self, error: BaseException | None) -> None:
        if (
            self.scope is not None
            and not self._ended
            and (error is not None or self.ctx.engine.ready)
        ):
            # Crashed, or stopped by its supervisor while the engine runs: the
            # run must not go on unsupervised. (At engine shutdown the sessions
            # stop their runs themselves, and the instance stays 'running' for
            # the restart.) A restarted incarnation starts from the stored record.
            self.scope.cancel(
                "agent instance crashed" if error is not None else "agent instance stopped"
            )
        self._unbind()
        if not self._ended:
            # Engine shutdown or a crash: keep the status (a restart picks the
            # instance up again) but not lose the usage charged since the last save.
            await self._save_usage()
        if self._stream is not None:
            self._stream.close()

    def cancel(self, reason: str) -> None:
        """Cancel the instance's scope (and so its run); its life then records the end."""
        if self.scope is not None and not self._ending:
            self.scope.cancel(reason)

    def _unbind(self) -> None:
        if self.binding is not None:
            self.ctx.engine.sessions.unbind(self.instance.session_id, self.binding)

    def _announce_spawn(self, request: SpawnRequest) -> None:
        instance = self.instance
        self._publish(
            ev.SPAWN_APPROVED,
            parentInstanceID=instance.parent_instance_id,
            source=request.source,
            requestedRole=request.role,
            templateID=instance.template_id,
            skillHash=instance.skill_hash,
            callerSessionID=request.calling_session_id,
            **self._workspace(),
        )
        self._announce_started(restored=False)

    def _announce_started(self, *, restored: bool) -> None:
        instance = self.instance
        self._publish(
            ev.INSTANCE_STARTED,
            parentInstanceID=instance.parent_instance_id,
            role=instance.role,
            status=instance.status,
            templateID=instance.template_id,
            budgetLimit=limits_to_wire(instance.budget),
            skillHash=instance.skill_hash,
            restored=restored,
            **self._workspace(),
        )

    # ------------------------------------------------------------------ runs
    async def _prompt(self, request: RunRequest) -> RunStarted:
        assert self.scope is not None
        if self._ending or self.scope.cancelled or self._settled.is_set():
            raise InstanceNotRunning(
                instanceID=self.instance.id, instanceStatus=self.instance.status
            )
        # The session is bound to this instance: the run gets its budget, tool
        # lists, gate and system prompt there, whoever prompts the session.
        started = await self.ctx.engine.sessions.prompt(self.instance.session_id, request)
        if not started.replayed:
            await self._follow(started.run.id)
        return started

    async def _follow(self, run_id: str) -> None:
        """Follow a run of the session (started here, or seen starting in its events)."""
        if run_id in self._seen_runs or self._ending:
            return
        self._seen_runs.add(run_id)
        self.run_id = run_id
        self.run_done = trio.Event()
        self.instance = attrs.evolve(self.instance, run_id=run_id, updated_at_ms=self.ctx.now_ms())
        await self.ctx.repo.save_instance(self.instance)

    def _run_ended(self, ended: RunEnded) -> None:
        if ended.run_id != self.run_id:
            return  # an earlier run, or one from before this incarnation followed the session
        self.run_done.set()
        assert self.scope is not None
        if self.scope.cancelled:
            return  # the scope's end decides (exhaustion or cancellation)
        if ended.status == "completed":
            self._settle(Verdict("completed"))
        elif ended.status == "cancelled":
            # The run was cancelled directly (through its session): that ends the instance's task.
            self.scope.cancel(ended.error_message or "the instance's run was cancelled")
        else:
            message = (
                ended.error_message or ended.error_code or f"run ended with status {ended.status}"
            )
            code = ended.error_code
            self._settle(Verdict("failed", f"{code}: {message}" if code else message))

    def _settle(self, verdict: Verdict) -> None:
        if self._outcome is None:
            self._outcome = verdict
        self._settled.set()

    # ------------------------------------------------------------------ life and end
    async def _life(self) -> None:
        assert self.scope is not None
        with self.scope:
            await self._settled.wait()
        self._ending = True
        # From now on a prompt of the session is a plain session run again.
        self._unbind()
        if self.run_id is not None and not self.run_done.is_set():
            # The run's scope is a child of ours, so it is cancelled too; give
            # it a moment to record its end before we record ours.
            with trio.move_on_after(RUN_STOP_GRACE_S):
                await self.run_done.wait()
        # The end is recorded in the mailbox, so no other write of the record runs meanwhile.
        try:
            await self.ref.ask(Finish(), timeout=FINISH_ASK_S)
        except ActorDead:
            pass  # stopped meanwhile (engine shutdown): stopped() keeps the usage
        except AskTimeout:
            log.error("agent instance %s could not record its end", self.instance.id)

    def _verdict(self) -> Verdict:
        assert self.scope is not None
        scope = self.scope
        if scope.exhausted is not None:
            return Verdict("cancelled", "budget exhausted", scope.exhausted.limit)
        if scope.cancelled_by is not None:
            return Verdict(
                "cancelled", "mission budget exhausted", f"mission_{scope.cancelled_by.limit}"
            )
        if self._outcome is not None and not scope.cancelled:
            return self._outcome
        return Verdict("cancelled", scope.cancel_reason or "cancelled")

    async def _finish(self) -> None:
        assert self.scope is not None
        verdict = self._verdict()
        if not self.scope.cancelled:
            # Freeze the instance's clock and usage: nothing runs under it any more.
            self.scope.cancel(verdict.status)
        now = self.ctx.now_ms()
        self.instance = attrs.evolve(
            self.instance,
            status=verdict.status,
            reason=verdict.reason,
            exhausted_by=verdict.exhausted_by,
            usage=self.scope.usage,
            updated_at_ms=now,
            ended_at_ms=now,
        )
        # An instance ended by its mission's exhaustion records that exhaustion with
        # its own end, so anyone who saw the end also finds the mission spent.
        mission_exhausted = (
            self.scope.cancelled_by.limit if self.scope.cancelled_by is not None else None
        )
        await self.ctx.repo.save_instance(
            self.instance,
            mission_usage=self._mission_usage(),
            mission_exhausted_by=mission_exhausted,
        )
        self._ended = True
        self._publish(ev.BUDGET_USAGE, **usage_to_wire(self.instance.usage_or_zero))
        self._publish(
            ev.ENDED_EVENTS[verdict.status],
            parentInstanceID=self.instance.parent_instance_id,
            role=self.instance.role,
            status=verdict.status,
            reason=verdict.reason,
            exhaustedBy=verdict.exhausted_by,
            **self._workspace(),
        )
        if self.mission is not None:
            try:
                self.mission.tell(InstanceEnded(self.instance.id))
            except (ActorDead, MailboxFull):
                pass  # the mission is stopping; it recounts from its own books
        self.stop()

    # ------------------------------------------------------------------ budget reporting
    def _on_exhausted(self, scope: BudgetScope, exhaustion: Exhaustion) -> None:
        # Runs synchronously in whichever task charged the last unit (usually the run's).
        self._publish(
            ev.BUDGET_EXHAUSTED,
            exhaustedBy=exhaustion.limit,
            budgetLimit=limits_to_wire(scope.limits),
            **usage_to_wire(exhaustion.usage),
        )

    async def _watch(self) -> None:
        assert self._stream is not None
        await follow_session(self, self._stream)

    async def _save_usage(self) -> None:
        if self.scope is None or self._ended:
            return
        self.instance = attrs.evolve(
            self.instance, usage=self.scope.usage, updated_at_ms=self.ctx.now_ms()
        )
        try:
            await self.ctx.repo.save_instance(self.instance, mission_usage=self._mission_usage())
        except SvcError:
            log.exception("could not save the usage of agent instance %s", self.instance.id)

    def _mission_usage(self) -> BudgetUsage | None:
        # The mission's scope is the one this instance runs under until the mission is
        # cancelled; after that the mission may go on under a fresh scope (a cancelled
        # mission is not a spent one), whose counters the old scope must never overwrite:
        # the mission records its own usage then.
        scope = self.mission_scope
        if scope.cancelled and scope.exhausted is None:
            return None
        return scope.usage

    # ------------------------------------------------------------------ helpers
    def _publish(self, type: str, **extra: Any) -> None:
        self.ctx.events.publish(
            type,
            session_id=self.instance.session_id,
            run_id=self.run_id or self.instance.run_id,
            mission_id=self.instance.mission_id,
            instance_id=self.instance.id,
            **extra,
        )

    def _workspace(self) -> dict[str, Any]:
        root = self.instance.workspace_root
        return {"workspaceRoot": root, "workspaceRepoRoot": root, "managedWorktree": None}


__all__ = ["InstanceActor"]
