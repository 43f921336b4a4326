"""The sessions facade: what routes, the CLI and other domains call.

Reads go straight to the store; anything that changes a session or starts a
run is a message to that session's actor (activated lazily, rehydrated from
the store after a restart).
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import attrs
import trio

from actors import ActorDead, ActorRef, ActorSystem, AskTimeout

from ..clock import Clock
from ..entities import Ask, Entities, EntityKind, ask_ref
from ..errors import SvcError, ValidationFailed
from ..events import EventLog
from ..limits import Slots
from ..providers import ProviderRegistry
from ..roots import check_within_roots
from ..settings import Settings
from ..tools import ToolRegistry
from .dispatch import ToolDispatcher
from .permissions import PermissionService
from .questions import QuestionService
from .repository import SessionRepository

# The actor, its run loop, the actor messages and the records are imported on
# first use: start-up only wires this service, and a session's actor spawns on
# its first request (docs/architecture.md, "Start-up budget").
if TYPE_CHECKING:
    import httpx

    from .actor import SessionActor
    from .binding import SessionBinding
    from .history import SessionHistory
    from .records import Message, Run, Session
    from .recovery import RunRecovery
    from .requests import RunRequest, RunStarted

log = logging.getLogger("svc.sessions")

R = TypeVar("R")

ASK_TIMEOUT = 30.0
SESSION_PREFIX = "session/"
SUMMARY_TIMEOUT_S = 600.0
SUMMARY_PROMPT = (
    "Summarize the conversation so far for someone continuing it: the goal, what was "
    "decided or done (files changed, commands run), and what remains open. Be concise."
)


@attrs.define(eq=False)
class SessionServices:
    """What a session actor and its runs need from the engine."""

    repo: SessionRepository
    events: EventLog
    clock: Clock
    providers: ProviderRegistry
    tools: ToolRegistry
    dispatcher: ToolDispatcher
    permissions: PermissionService
    questions: QuestionService
    settings: Callable[[], Settings]
    http: httpx.AsyncClient | None = None
    """The shared outbound client tools use (``ToolContext.http``)."""
    run_slots: Slots | None = None
    """The engine-wide bound on concurrent runs (``max_concurrent_runs``)."""


@attrs.frozen
class CreateSession:
    title: str | None = None
    directory: str | None = None
    project_id: str | None = None
    parent_id: str | None = None
    provider_id: str | None = None
    model_id: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    source_kind: str | None = None
    source_metadata: Mapping[str, Any] | None = None


def request_hash(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


class SessionService:
    def __init__(self, services: SessionServices, actors: ActorSystem) -> None:
        self.s = services
        self.repo = services.repo
        self.actors = actors
        self._bindings: dict[str, SessionBinding] = {}

    # ------------------------------------------------------------------ bindings
    def bind(self, session_id: str, binding: SessionBinding) -> None:
        """Run every prompt of ``session_id`` under ``binding`` (svc/sessions/binding.py) until
        it is unbound: its owner (an agent instance) binds it as it starts."""
        self._bindings[session_id] = binding

    def unbind(self, session_id: str, binding: SessionBinding) -> None:
        """Remove ``binding``; a newer binding of the session (a restarted owner's) stays."""
        if self._bindings.get(session_id) is binding:
            del self._bindings[session_id]

    def binding(self, session_id: str) -> SessionBinding | None:
        return self._bindings.get(session_id)

    # ------------------------------------------------------------------ lifecycle
    def install(self, entities: Entities) -> None:
        """Register lazy activation of ``session/<id>`` actors under the sessions supervisor."""
        self.entities = entities
        entities.register(
            EntityKind(
                SESSION_PREFIX,
                "sessions",
                _session_not_found,
                timeout=ASK_TIMEOUT,
            ),
            self._activate,
        )

    async def _activate(self, name: str) -> SessionActor | None:
        from .actor import SessionActor

        session = await self.repo.get(name[len(SESSION_PREFIX) :])
        if session is None:
            return None
        await self._settle_orphans(session.id)
        return SessionActor(self.s, session)

    async def recover(self) -> int:
        """At start-up: runs left 'running' by a crash end as errors, with their terminal event
        and the answer they had streamed (``svc/sessions/recovery.py``)."""
        orphans = await self.repo.runs(status="running", limit=10_000)
        if orphans:
            await self._recovery().settle_all(orphans)
        return len(orphans)

    async def _settle_orphans(self, session_id: str) -> None:
        orphans = await self.repo.runs(session_id=session_id, status="running", limit=100)
        if orphans:
            await self._recovery().settle_all(orphans)

    def _recovery(self) -> RunRecovery:
        # Imported on first use: a clean start has no orphaned run to settle.
        from .recovery import RunRecovery

        return RunRecovery(self.s)

    async def ref(self, session_id: str) -> ActorRef:
        return await self.entities.ref(SESSION_PREFIX, session_id)

    # ------------------------------------------------------------------ sessions
    async def create(self, body: CreateSession) -> Session:
        from .records import DEFAULT_TITLE, Session

        settings = self.s.settings()
        workspace = settings.resolved_workspace
        directory = Path(body.directory).expanduser() if body.directory else workspace
        if not directory.is_absolute():
            directory = workspace / directory
        directory = check_within_roots(directory, settings.workspace_roots, field="directory")
        # A directory that does not exist (yet) is accepted, as the reference does (its
        # quick start passes a placeholder path); tools working there fail on their own.
        # One that exists but is a file can never work.
        if directory.exists() and not directory.is_dir():
            raise ValidationFailed(f"`directory` {directory} is not a directory", field="directory")
        if (body.provider_id is None) != (body.model_id is None) and body.model_id is not None:
            raise ValidationFailed(
                "`model.providerID` is required with `model.modelID`", field="model.providerID"
            )
        now = self.s.clock.now_ms()
        sampling = {
            k: v
            for k, v in (
                ("temperature", body.temperature),
                ("top_p", body.top_p),
                ("max_tokens", body.max_tokens),
            )
            if v is not None
        }
        session = Session(
            id=str(uuid.uuid4()),
            title=(body.title or "").strip() or DEFAULT_TITLE,
            directory=str(directory),
            created_at_ms=now,
            updated_at_ms=now,
            project_id=body.project_id,
            parent_id=body.parent_id,
            provider_id=body.provider_id,
            model_id=body.model_id,
            settings=sampling,
            source_kind=body.source_kind,
            source_metadata=body.source_metadata,
        )
        await self.repo.create(session)
        self.s.events.publish("session.created", {"sessionID": session.id, "title": session.title})
        return session

    async def get(self, session_id: str) -> Session:
        from .requests import GetSession, SessionNotFound

        ref = self.actors.lookup(SESSION_PREFIX + session_id)
        if ref is not None and ref.alive:
            try:
                return await _ask_running(ref, GetSession())
            except (ActorDead, AskTimeout):
                pass  # the actor just stopped or is busy; the store has the truth
        session = await self.repo.get(session_id)
        if session is None:
            raise SessionNotFound(sessionID=session_id)
        return session

    async def list_sessions(self, **filters: Any) -> list[Session]:
        return await self.repo.list_sessions(**filters)

    async def messages(self, session_id: str) -> list[Message]:
        await self.get(session_id)
        return await self.repo.messages(session_id)

    async def update(self, session_id: str, changes: Mapping[str, Any]) -> Session:
        from .requests import UpdateSession

        return await self._ask(session_id, UpdateSession(changes))

    async def delete(self, session_id: str) -> dict[str, Any]:
        from .requests import DeleteSession

        return await self._ask(session_id, DeleteSession())

    async def append_message(self, session_id: str, parts: list[Any]) -> Message:
        from .requests import AppendMessage

        return await self._ask(session_id, AppendMessage(tuple(parts)))

    # ------------------------------------------------------------------ runs
    def validate_parts(self, session: Session, raw: Any) -> tuple[dict[str, Any], ...]:
        from .parts import validate_parts

        return validate_parts(raw, workspace=Path(session.directory))

    async def prompt(self, session_id: str, request: RunRequest) -> RunStarted:
        from .requests import StartRun

        binding = self._bindings.get(session_id)
        if binding is not None:
            request = binding.apply(request)
        return await self._ask(session_id, StartRun(request))

    async def active_run(self, session_id: str) -> Run | None:
        from .requests import GetActiveRun

        await self.get(session_id)
        ref = self.actors.lookup(SESSION_PREFIX + session_id)
        if ref is None or not ref.alive:
            return None
        return await _ask_running(ref, GetActiveRun())

    async def cancel(
        self, session_id: str, run_id: str | None = None, reason: str = "user_cancelled"
    ) -> bool:
        from .requests import CancelRun

        await self.get(session_id)
        ref = self.actors.lookup(SESSION_PREFIX + session_id)
        if ref is None or not ref.alive:
            return False
        return await _ask_running(ref, CancelRun(run_id, reason))

    async def wait(self, started: RunStarted, *, timeout: float | None = None) -> Run:
        """Wait for a run to end and return its final record."""
        if timeout is None:
            await started.done.wait()
        else:
            with trio.fail_after(timeout):
                await started.done.wait()
        run = await self.repo.get_run(started.run.id)
        return run or started.run

    async def run_to_end(
        self, session_id: str, request: RunRequest, *, timeout: float | None = None
    ) -> tuple[Run, str]:
        """Start a run, wait for it, and return it with its final reply text."""
        started = await self.prompt(session_id, request)
        run = await self.wait(started, timeout=timeout)
        return run, await self.reply_text(run)

    async def reply_text(self, run: Run) -> str:
        if not run.assistant_message_id:
            return ""
        message = await self.repo.get_message(run.assistant_message_id)
        if message is None or message.session_id != run.session_id:
            return ""
        return message.text()

    # ------------------------------------------------------------------ history
    def _history(self) -> SessionHistory:
        # Imported on first use: start-up serves no fork, diff or revert.
        from .history import SessionHistory
        from .history_repository import SessionHistoryRepository

        return SessionHistory(SessionHistoryRepository(self.repo.store))

    async def fork(self, session_id: str, *, message_id: str | None = None) -> Session:
        """A new session with this one's transcript up to ``message_id``, linked as its child."""
        parent = await self.get(session_id)
        child = await self._history().fork(
            parent, message_id=message_id, now_ms=self.s.clock.now_ms()
        )
        self.s.events.publish(
            "session.created",
            {"sessionID": child.id, "title": child.title, "parentID": parent.id},
        )
        return child

    async def children(self, session_id: str) -> list[Session]:
        await self.get(session_id)
        return await self._history().children(session_id)

    async def diff(self, session_id: str) -> dict[str, Any]:
        await self.get(session_id)
        return await self._history().diff(session_id)

    async def revert(self, session_id: str, message_id: str | None = None) -> dict[str, Any]:
        from .requests import RevertMessages

        return await self._ask(session_id, RevertMessages(message_id))

    async def unrevert(self, session_id: str) -> dict[str, Any]:
        from .requests import UnrevertMessages

        return await self._ask(session_id, UnrevertMessages())

    async def summarize(
        self, session_id: str, *, provider_id: str | None = None, model_id: str | None = None
    ) -> tuple[Run, str]:
        """Ask the session's model for a summary of the conversation so far (a run of its own,
        without tools); the summary is the run's answer, kept in the transcript."""
        from .requests import RunRequest

        request = RunRequest(
            parts=({"type": "text", "text": SUMMARY_PROMPT, "synthetic": True},),
            provider_id=provider_id,
            model_id=model_id,
            tool_mode="none",
            source="summary",
            metadata={"purpose": "summary"},
        )
        return await self.run_to_end(session_id, request, timeout=SUMMARY_TIMEOUT_S)

    async def attach(self, session_id: str, directory: str) -> Session:
        """Move the session to another workspace directory (inside the workspace roots)."""
        settings = self.s.settings()
        path = Path(directory).expanduser()
        if not path.is_absolute():
            path = settings.resolved_workspace / path
        path = check_within_roots(path, settings.workspace_roots, field="target_workspace")
        if not path.is_dir():
            raise ValidationFailed(
                f"`target_workspace` {path} is not a directory", field="target_workspace"
            )
        return await self.update(session_id, {"directory": str(path)})

    async def _ask(self, session_id: str, message: Ask[R]) -> R:
        return await self.entities.ask(SESSION_PREFIX, session_id, message)


async def _ask_running(ref: ActorRef, message: Ask[R]) -> R:
    """Ask a session actor that is already running (never activates one)."""
    return cast(R, await ask_ref(ref, message))


def _session_not_found(session_id: str) -> SvcError:
    # The request module loads on first use (docs/architecture.md, "Start-up budget").
    from .requests import SessionNotFound

    return SessionNotFound(sessionID=session_id)
