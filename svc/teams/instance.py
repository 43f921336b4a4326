"""The InstanceActor: one agent instance, its budget scope, and the runs it governs.

The instance's :class:`~supervisors.BudgetScope` is a child of its mission's.
Every run of the instance's session is started with that scope as the run's
parent budget, the template's tool lists as its registry view and the
capability gate, so each token, step, tool call, second and dollar the run
spends is charged to the instance and its mission as it happens.

The actor's life is one ``with scope:`` block. It ends when the instance's
run completes or fails, or when the scope ends: cancelled (by a user, or with
its mission), exhausted (its own limit, or its deadline), or cancelled by an
exhausted mission. Nothing polls: exhaustion and cancellation cancel the trio
scopes of the instance and of its run together, and the actor then waits for
the run to record its end, records its own, announces it, and stops.

A watcher task follows the session's events to report ``agent_team.budget.usage``
(and persist the usage) as the run charges, and to report allowlist refusals
as ``agent_team.capability.denied``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs
import trio

from actors import Actor, ActorDead, ActorRef, MailboxFull
from supervisors import BudgetScope, BudgetUsage, Exhaustion

from ..errors import SvcError
from ..events import Event, EventFilter, EventStream, StreamEnded
from ..sessions import RunRequest, RunStarted
from ..tools import matches_any
from . import events as ev
from .capabilities import CapabilityGate
from .context import RUN_STOP_GRACE_S, RuntimePolicy, TeamsContext
from .errors import InstanceNotRunning
from .records import Instance, SpawnRequest, limits_to_wire, usage_to_wire
from .templates import normalize_tool_name

log = logging.getLogger("svc.teams")

_WATCHED = frozenset({"provider.usage", "message.part.updated", "tool.denied"})


def _relevant(event: Event) -> bool:
    if event.type != "message.part.updated":
        return True
    part = event.properties.get("part") or {}
    # Only a tool part that starts executing charges anything (a tool call).
    return part.get("type") == "tool" and part.get("state") == "running"


class MissionLink(Protocol):
    """What an instance needs of its mission supervisor."""

    ref: ActorRef

    def usage(self) -> BudgetUsage: ...


# ------------------------------------------------------------------ messages
@attrs.frozen
class PromptInstance:
    request: RunRequest


@attrs.frozen
class CancelInstance:
    reason: str


@attrs.frozen
class GetRemaining:
    pass


@attrs.frozen
class InstanceEnded:
    """Told to the mission supervisor when an instance has recorded its end."""

    instance_id: str


@attrs.frozen
class Verdict:
    status: str
    reason: str | None = None
    exhausted_by: str | None = None


class InstanceActor(Actor):
    mailbox_size = 64

    def __init__(
        self,
        ctx: TeamsContext,
        instance: Instance,
        *,
        mission_scope: BudgetScope,
        mission: MissionLink | None,
        runtime: RuntimePolicy,
        prompt: str | None = None,
        spawned_by: SpawnRequest | None = None,
    ) -> None:
        self.ctx = ctx
        self.instance = instance
        self.mission_scope = mission_scope
        self.mission = mission
        self.runtime = runtime
        self.prompt = prompt
        self.spawned_by = spawned_by
        """The request of a fresh spawn (announced when the instance starts); None when restored."""
        self.scope: BudgetScope | None = None
        self.active: RunStarted | None = None
        self.ended = trio.Event()
        """Set once the instance's end is recorded and announced."""
        self._settled = trio.Event()
        self._outcome: Verdict | None = None
        self._ending = False
        self._save_lock = trio.Lock()
        self._stream: EventStream | None = None
        self.gate = CapabilityGate(
            instance.capabilities,
            workspace=Path(instance.workspace_root)
            if instance.workspace_root
            else ctx.engine.workspace,
            push_requires_approval=runtime.push_requires_approval,
            approve_push=self._approve_push,
            on_denied=self._capability_denied,
        )

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
        # The stream's cursor is fixed now, before any run starts, so the
        # watcher sees every event of every run of this instance.
        self._stream = EventStream(
            self.ctx.engine.events,
            EventFilter(session_id=instance.session_id, types=_WATCHED, predicate=_relevant),
        )
        self.nursery.start_soon(self._watch)
        self.nursery.start_soon(self._life)
        self._announce_live(True)
        if self.spawned_by is not None:
            self._announce_spawn(self.spawned_by)
        else:
            # Supervised again after an engine restart or a crash.
            self._publish(
                ev.INSTANCE_STARTED,
                parentInstanceID=instance.parent_instance_id,
                role=instance.role,
                status=instance.status,
                templateID=instance.template_id,
                budgetLimit=limits_to_wire(instance.budget),
                skillHash=instance.skill_hash,
                restored=True,
                **self._workspace(),
            )
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
                return self.ended
            case GetRemaining():
                assert self.scope is not None
                return self.scope.remaining()
        raise TypeError(f"instance actor cannot handle {type(message).__name__}")

    async def stopped(self, error: BaseException | None) -> None:
        if (
            self.scope is not None
            and not self.ended.is_set()
            and (error is not None or self.ctx.engine.ready)
        ):
            # Crashed, or stopped by its supervisor while the engine runs: the
            # run must not go on unsupervised. (At engine shutdown the sessions
            # stop their runs themselves, and the instance stays 'running' for
            # the restart.) A restarted incarnation starts from the stored record.
            self.scope.cancel(
                "agent instance crashed" if error is not None else "agent instance stopped"
            )
        if not self.ended.is_set():
            self._announce_live(False)
            # Engine shutdown or a crash: keep the status (a restart picks the
            # instance up again) but not lose the usage charged since the last save.
            await self._save_usage()
        if self._stream is not None:
            self._stream.close()

    def cancel(self, reason: str) -> None:
        """Cancel the instance's scope (and so its run); its life then records the end."""
        if self.scope is not None and not self._ending:
            self.scope.cancel(reason)

    def _announce_spawn(self, request: SpawnRequest) -> None:
        instance = self.instance
        workspace = self._workspace()
        self._publish(
            ev.SPAWN_APPROVED,
            parentInstanceID=instance.parent_instance_id,
            source=request.source,
            requestedRole=request.role,
            templateID=instance.template_id,
            skillHash=instance.skill_hash,
            callerSessionID=request.calling_session_id,
            **workspace,
        )
        self._publish(
            ev.INSTANCE_STARTED,
            parentInstanceID=instance.parent_instance_id,
            role=instance.role,
            status=instance.status,
            templateID=instance.template_id,
            budgetLimit=limits_to_wire(instance.budget),
            skillHash=instance.skill_hash,
            restored=False,
            **workspace,
        )

    # ------------------------------------------------------------------ runs
    async def _prompt(self, request: RunRequest) -> RunStarted:
        assert self.scope is not None
        if self._ending or self.scope.cancelled or self._settled.is_set():
            raise InstanceNotRunning(
                instanceID=self.instance.id, instanceStatus=self.instance.status
            )
        started = await self.ctx.engine.sessions.prompt(
            self.instance.session_id, self.shape(request)
        )
        if started.replayed:
            return started
        self.active = started
        async with self._save_lock:
            self.instance = attrs.evolve(
                self.instance, run_id=started.run.id, updated_at_ms=self.ctx.now_ms()
            )
            await self.ctx.repo.save_instance(self.instance)
        self.nursery.start_soon(self._await_run, started)
        return started

    def shape(self, request: RunRequest) -> RunRequest:
        """``request`` as a run of this instance: its budget, tool lists, gate and system prompt."""
        assert self.scope is not None
        caps = self.instance.capabilities
        gates = [self.gate, *request.gates]
        allow: tuple[str, ...] | None = None
        if caps.allow_patterns:
            # Both spellings: registry names are matched as written, the gate normalises.
            allow = tuple(dict.fromkeys([*caps.tool_allowlist, *caps.allow_patterns]))
            if request.tool_allowlist is not None:
                gates.append(_allowlist_gate(request.tool_allowlist))
        elif request.tool_allowlist is not None:
            allow = request.tool_allowlist
        deny = tuple(
            dict.fromkeys([*caps.tool_denylist, *caps.deny_patterns, *request.tool_denylist])
        )
        system = "\n".join(s for s in (self.instance.system_prompt, request.system) if s) or None
        metadata: dict[str, Any] = {
            **request.metadata,
            "agentTeam": {
                "missionID": self.instance.mission_id,
                "instanceID": self.instance.id,
                "role": self.instance.role,
                "templateID": self.instance.template_id,
            },
        }
        return attrs.evolve(
            request,
            budget=self.scope,
            tool_allowlist=allow,
            tool_denylist=deny,
            gates=tuple(gates),
            system=system,
            agent_id=request.agent_id or self.instance.id,
            metadata=metadata,
        )

    async def _await_run(self, started: RunStarted) -> None:
        run = await self.ctx.engine.sessions.wait(started)
        assert self.scope is not None
        if self.scope.cancelled:
            return  # the scope's end decides (exhaustion or cancellation)
        if run.status == "completed":
            self._settle(Verdict("completed"))
        elif run.status == "cancelled":
            # The run was cancelled directly (through its session): that ends the instance's task.
            self.scope.cancel(run.error_message or "the instance's run was cancelled")
        else:
            message = run.error_message or run.error_code or f"run ended with status {run.status}"
            self._settle(
                Verdict("failed", f"{run.error_code}: {message}" if run.error_code else message)
            )

    def _settle(self, verdict: Verdict) -> None:
        if self._outcome is None:
            self._outcome = verdict
        self._settled.set()

    # ------------------------------------------------------------------ life and end
    async def _life(self) -> None:
        assert self.scope is not None
        with self.scope:
            await self._settled.wait()
        await self._finish()

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
        self._ending = True
        active = self.active
        if active is not None and not active.done.is_set():
            # The run's scope is a child of ours, so it is cancelled too; give
            # it a moment to record its end before we record ours.
            with trio.move_on_after(RUN_STOP_GRACE_S):
                await active.done.wait()
        verdict = self._verdict()
        if not self.scope.cancelled:
            # Freeze the instance's clock and usage: nothing runs under it any more.
            self.scope.cancel(verdict.status)
        now = self.ctx.now_ms()
        async with self._save_lock:
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
        self._announce_live(False)
        if self.mission is not None:
            try:
                self.mission.ref.tell(InstanceEnded(self.instance.id))
            except (ActorDead, MailboxFull):
                pass  # the mission is stopping; it recounts from its own books
        self.ended.set()
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
        with self._stream:
            while True:
                try:
                    batch = await self._stream.receive()
                except StreamEnded:
                    return
                charged = False
                for event in batch:
                    if event.type == "tool.denied":
                        self._report_view_denial(event)
                    elif event.type == "provider.usage":
                        self._supplement_cost(event.properties)
                        charged = True
                    else:
                        charged = True
                if charged and not self._ending:
                    await self._save_usage()
                    self._publish(ev.BUDGET_USAGE, **usage_to_wire(self.instance.usage_or_zero))

    def _supplement_cost(self, usage: Mapping[str, Any]) -> None:
        """Charge the difference when the policy's cost rate is above the engine's."""
        rate = self.runtime.cost_per_1k_tokens_usd
        if not rate or self.scope is None or self.scope.cancelled:
            return
        tokens = usage.get("totalTokens") or 0
        extra = tokens * rate / 1000.0 - float(usage.get("costUsd") or 0.0)
        if extra > 0:
            self.scope.charge(cost_usd=extra)

    def _report_view_denial(self, event: Event) -> None:
        # The registry view refuses tools outside the allowlist before any gate
        # runs; that refusal is a capability denial too. (The gate reports its own.)
        if event.properties.get("code") == "TOOL_NOT_ALLOWED":
            self._publish(
                ev.CAPABILITY_DENIED,
                tool=event.properties.get("tool"),
                reason=event.properties.get("reason"),
            )

    async def _save_usage(self) -> None:
        if self.scope is None:
            return
        async with self._save_lock:
            if self.ended.is_set():
                return
            self.instance = attrs.evolve(
                self.instance, usage=self.scope.usage, updated_at_ms=self.ctx.now_ms()
            )
            try:
                await self.ctx.repo.save_instance(
                    self.instance, mission_usage=self._mission_usage()
                )
            except SvcError:
                log.exception("could not save the usage of agent instance %s", self.instance.id)

    def _mission_usage(self) -> BudgetUsage:
        # The mission's live scope, not the one this instance started under: a
        # cancelled mission continues under a fresh scope, and its counters
        # must never go backwards in the store.
        return self.mission.usage() if self.mission is not None else self.mission_scope.usage

    # ------------------------------------------------------------------ capability gate hooks
    def _capability_denied(self, tool: str, reason: str) -> None:
        self._publish(ev.CAPABILITY_DENIED, tool=tool, reason=reason)

    async def _approve_push(self, command: str, args: Mapping[str, Any]) -> str | None:
        permissions = self.ctx.engine.permissions
        session_id = self.instance.session_id
        action = permissions.evaluate("git_push", session_id=session_id)
        if action == "allow":
            return None
        if action == "deny":
            return "git push denied by policy rule"
        run_id = self.active.run.id if self.active is not None else None
        outcome, request = await permissions.request(
            tool="git_push",
            permission="git_push",
            args={"command": command},
            session_id=session_id,
            run_id=run_id,
        )
        if outcome == "approved":
            return None
        if outcome == "denied":
            return f"git push denied by the user (approvalID={request.id})"
        return f"git push approval timed out (approvalID={request.id})"

    # ------------------------------------------------------------------ helpers
    def _publish(self, type: str, **extra: Any) -> None:
        run_id = self.active.run.id if self.active is not None else self.instance.run_id
        self.ctx.events.publish(
            type,
            session_id=self.instance.session_id,
            run_id=run_id,
            mission_id=self.instance.mission_id,
            instance_id=self.instance.id,
            **extra,
        )

    def _workspace(self) -> dict[str, Any]:
        root = self.instance.workspace_root
        return {"workspaceRoot": root, "workspaceRepoRoot": root, "managedWorktree": None}

    def _announce_live(self, live: bool) -> None:
        if self.ctx.on_instance_live is not None:
            self.ctx.on_instance_live(
                self.instance.id, self.instance.session_id, self.ref if live else None
            )


def _allowlist_gate(patterns: tuple[str, ...]) -> Any:
    """A gate enforcing a caller's own allowlist inside the template's."""
    normalized = [normalize_tool_name(p) for p in patterns]

    async def gate(tool: str, args: Mapping[str, Any]) -> str | None:
        if matches_any(normalized, normalize_tool_name(tool)):
            return None
        return f"tool `{tool}` is not allowed in this run"

    return gate


__all__ = [
    "CancelInstance",
    "GetRemaining",
    "InstanceActor",
    "InstanceEnded",
    "PromptInstance",
    "Verdict",
]
