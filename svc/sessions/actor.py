"""The session actor: one per session, owner of its single active run.

Messages are handled one at a time, so "at most one active run" needs no
lock: a second ``StartRun`` while a run is active is refused with
``SESSION_RUN_CONFLICT``. The run itself is a task in the actor's nursery, so
the mailbox stays responsive while a run streams (a ``CancelRun`` arrives and
is handled mid-run).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from actors import Actor

from ..errors import ValidationFailed
from .parts import validate_parts
from .records import Message, Run, Session, attach_hint
from .requests import (
    AppendMessage,
    CancelRun,
    DeleteSession,
    GetActiveRun,
    GetSession,
    RevertMessages,
    RunConflict,
    RunRequest,
    RunStarted,
    SetTodos,
    StartRun,
    UnrevertMessages,
    UpdateSession,
)
from .run import RunExecution

log = logging.getLogger("svc.sessions")

RETRY_AFTER_MS = 500

_UPDATABLE = {
    "title",
    "archived",
    "provider_id",
    "model_id",
    "settings",
    "project_id",
    "source_metadata",
    "directory",
    "parent_id",
}


class SessionActor(Actor):
    mailbox_size = 256

    def __init__(self, services: Any, session: Session) -> None:
        self.s = services
        self.session = session
        self.active: RunExecution | None = None
        self.done: dict[str, trio.Event] = {}
        self.delete_after_run = False

    async def receive(self, message: object) -> object:
        match message:
            case StartRun(request=request):
                return await self._start(request)
            case CancelRun(run_id=run_id, reason=reason):
                return self._cancel(run_id, reason)
            case GetActiveRun():
                return self.active.run if self.active else None
            case GetSession():
                return self.session
            case AppendMessage(parts=parts):
                return await self._append(parts)
            case UpdateSession(changes=changes):
                return await self._update(changes)
            case DeleteSession():
                return await self._delete()
            case SetTodos(todos=todos):
                return await self._set_todos(todos)
            case RevertMessages(message_id=message_id):
                return await self._revert(message_id)
            case UnrevertMessages():
                return await self._unrevert()
        raise ValidationFailed(f"session actor cannot handle {type(message).__name__}")

    # ------------------------------------------------------------------ runs
    async def _start(self, request: RunRequest) -> RunStarted:
        repo = self.s.repo
        if request.idempotency_key:
            existing: Run | None = await repo.run_by_idempotency(
                self.session.id, request.idempotency_key
            )
            if existing is not None:
                if existing.request_hash != request.request_hash:
                    raise RunConflict(
                        "Idempotency key is already bound to a different prompt request",
                        sessionID=self.session.id,
                        idempotencyKey=request.idempotency_key,
                    )
                # A trio.Event has no truth value: look it up, never `or` it.
                done = self.done.get(existing.id)
                return RunStarted(existing, True, done if done is not None else _set_event())
        if self.active is not None:
            active = self.active.run
            hint = attach_hint(self.session.id, active.id)
            self.s.events.publish(
                "session.run.conflict",
                {
                    "sessionID": self.session.id,
                    "runID": active.id,
                    "retryAfterMs": RETRY_AFTER_MS,
                    "attachEventStream": hint,
                },
            )
            raise RunConflict(
                sessionID=self.session.id,
                activeRun=active.active_wire(),
                retryAfterMs=RETRY_AFTER_MS,
                attachEventStream=hint,
            )
        if self.session.settings.get("revert"):
            from .revert import make_final

            self.session = await make_final(self.s, self.session)
        now = self.s.clock.now_ms()
        run_id = str(uuid.uuid4())
        user_message = None
        if request.parts:
            user_message = Message(
                id=str(uuid.uuid4()),
                session_id=self.session.id,
                role="user",
                parts=tuple(request.parts),
                created_at_ms=now,
                run_id=run_id,
                info={"agent": request.agent} if request.agent else {},
            )
        run = Run(
            id=run_id,
            session_id=self.session.id,
            status="running",
            started_at_ms=now,
            last_activity_at_ms=now,
            source=request.source,
            client_id=request.client_id,
            agent_id=request.agent_id,
            idempotency_key=request.idempotency_key,
            request_hash=request.request_hash,
            allowed_tools=request.tool_allowlist,
            user_message_id=user_message.id if user_message else None,
            metadata={
                **request.metadata,
                **({"agentProfile": request.agent} if request.agent else {}),
            },
        )
        slots = self.s.run_slots
        if slots is not None:
            slots.acquire()  # raises RunLimitReached (429) before anything is recorded
        try:
            await repo.start_run(run, user_message)
        except BaseException:
            if slots is not None:
                slots.release()
            raise
        execution = RunExecution(
            self.s, self.session, run, request, user_message, on_todos=self._store_todos
        )
        self.active = execution
        done = trio.Event()
        self.done[run.id] = done
        self.nursery.start_soon(self._drive, execution, done)
        return RunStarted(run, False, done)

    async def _drive(self, execution: RunExecution, done: trio.Event) -> None:
        try:
            await execution.execute()
        finally:
            # Runs on this actor's task tree and touches only this actor's
            # state synchronously, so it cannot interleave with a message.
            if self.active is execution:
                self.active = None
            if self.s.run_slots is not None:
                self.s.run_slots.release()
            done.set()
            self.done.pop(execution.run.id, None)
            if self.delete_after_run:
                self.delete_after_run = False
                with trio.CancelScope(shield=True):
                    await self._really_delete()

    def _cancel(self, run_id: str | None, reason: str) -> bool:
        if self.active is None or (run_id is not None and run_id != self.active.run.id):
            return False
        self.active.cancel(reason)
        return True

    # ------------------------------------------------------------------ session
    async def _append(self, parts: tuple[Mapping[str, Any], ...]) -> Message:
        now = self.s.clock.now_ms()
        message = Message(
            id=str(uuid.uuid4()),
            session_id=self.session.id,
            role="user",
            parts=validate_parts(list(parts), workspace=Path(self.session.directory)),
            created_at_ms=now,
        )
        await self.s.repo.add_message(message, touch_session_ms=now)
        self.session = attrs.evolve(self.session, updated_at_ms=now)
        return message

    async def _update(self, changes: Mapping[str, Any]) -> Session:
        unknown = set(changes) - _UPDATABLE
        if unknown:
            raise ValidationFailed(f"cannot update {sorted(unknown)}", field=sorted(unknown)[0])
        updated = attrs.evolve(self.session, **dict(changes), updated_at_ms=self.s.clock.now_ms())
        await self.s.repo.save(updated)
        self.session = updated
        self.s.events.publish(
            "session.updated",
            {"sessionID": self.session.id, "title": updated.title, "archived": updated.archived},
        )
        return updated

    async def _delete(self) -> dict[str, Any]:
        if self.active is not None:
            active = self.active.run
            self.active.cancel("session_deleted")
            self.delete_after_run = True
            self.s.events.publish(
                "session.delete.deferred", {"sessionID": self.session.id, "runID": active.id}
            )
            return {
                "deleted": False,
                "cancelRequested": True,
                "activeRun": active.active_wire(),
                "reason": "active_run",
            }
        await self._really_delete()
        return {"deleted": True}

    async def _really_delete(self) -> None:
        await self.s.repo.delete(self.session.id)
        self.s.events.publish("session.deleted", {"sessionID": self.session.id})
        self.stop()

    async def _revert(self, message_id: str | None) -> dict[str, Any]:
        # Imported on first use: most sessions are never reverted.
        from .revert import revert

        self._refuse_while_running("revert")
        self.session, reply = await revert(self.s, self.session, message_id)
        return reply

    async def _unrevert(self) -> dict[str, Any]:
        from .revert import unrevert

        self._refuse_while_running("unrevert")
        self.session, reply = await unrevert(self.s, self.session)
        return reply

    def _refuse_while_running(self, what: str) -> None:
        if self.active is not None:
            active = self.active.run
            raise RunConflict(
                f"cannot {what} while a run is active",
                sessionID=self.session.id,
                activeRun=active.active_wire(),
                retryAfterMs=RETRY_AFTER_MS,
                attachEventStream=attach_hint(self.session.id, active.id),
            )

    async def _store_todos(self, todos: list[dict[str, Any]]) -> None:
        self.session = attrs.evolve(
            self.session, todos=tuple(todos), updated_at_ms=self.s.clock.now_ms()
        )
        await self.s.repo.save(self.session)

    async def _set_todos(self, todos: tuple[Mapping[str, Any], ...]) -> Session:
        await self._store_todos([dict(t) for t in todos])
        return self.session


def _set_event() -> trio.Event:
    event = trio.Event()
    event.set()
    return event
