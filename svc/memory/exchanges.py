"""The compact retrieval memory of completed exchanges.

Sessions keep full transcripts. In addition, every run that completes leaves
one small record, ``User: ... / Assistant: ...`` clipped to a few hundred
characters per side, in its session's tier (and a copy in its project's tier
when the session belongs to a project), so later runs find what was said with
``memory_search`` without replaying transcripts.

The recorder is a supervised child that reads ``session.run.finished`` (and
``session.deleted``) from the event log with an :class:`EventStream`. Its
cursor is committed in the same transaction as the records it wrote, and
records are keyed by run, so after a crash or restart it resumes exactly
where it stopped and never stores an exchange twice. A deleted session's
session-tier memory is removed with it; the project keeps its copies.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import trio

from ..events import Event, EventFilter, EventLog, EventStream, StreamEnded
from .exchange_repository import CURSOR_KEY
from .factory import build_record
from .service import MemoryService
from .tiers import Tier

if TYPE_CHECKING:
    from .records import Exchange, MemoryRecord

# The record shapes (Exchange among them) are imported by the first exchange recorded: a fresh
# engine records none at start-up (docs/architecture.md, "Start-up budget").

log = logging.getLogger("svc.memory")

DEFAULT_SIDE_CHARS = 600

_WHITESPACE = re.compile(r"\s+")

FILTER = EventFilter(types=frozenset({"session.run.finished", "session.deleted"}))


def clip(text: str, limit: int) -> str:
    """Whitespace collapsed, cut at a word boundary near ``limit`` with an ellipsis."""
    flat = _WHITESPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + "…"


def channel_tags(channel: str, conversation: str) -> tuple[str, str]:
    """The tags of a chat conversation's exchanges: the channel, and ``<channel>:<conversation>``
    (the filter a conversation's later prompts search by)."""
    return (channel, f"{channel}:{conversation}"[:64].lower())


def compact_exchange(user: str, assistant: str, *, side_chars: int = DEFAULT_SIDE_CHARS) -> str:
    return f"User: {clip(user, side_chars)}\nAssistant: {clip(assistant, side_chars)}"


class ExchangeRecorder:
    """Turns finished runs into compact memory records (see the module docstring)."""

    def __init__(
        self,
        memory: MemoryService,
        events: EventLog,
        sessions: Any,
        *,
        side_chars: int = DEFAULT_SIDE_CHARS,
        enabled: bool = True,
    ) -> None:
        self.memory = memory
        self.events = events
        self.sessions = sessions
        self.side_chars = side_chars
        self.enabled = enabled
        self.cursor: int | None = None
        self._progress = trio.Event()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Follow the event log until it shuts down."""
        repository = self.memory.store.exchanges
        cursor = await repository.cursor()
        if cursor is None:
            # First start on this database: remember exchanges from now on.
            cursor = self.events.committed_seq
            await repository.set_cursor(cursor, now_ms=self.memory.clock.now_ms())
        self.cursor = cursor
        with EventStream(self.events, FILTER, after_seq=self.cursor) as stream:
            task_status.started()
            while True:
                try:
                    batch = await stream.receive()
                except StreamEnded:
                    return  # the log is shutting down with the engine
                await self._handle(batch)

    async def wait_for(self, seq: int) -> None:
        """Wait until every event up to ``seq`` has been handled (tests, orderly shutdown)."""
        while self.cursor is None or self.cursor < seq:
            await self._progress.wait()

    async def _handle(self, batch: list[Event]) -> None:
        records: list[MemoryRecord] = []
        forgotten: list[str] = []
        for event in batch:
            try:
                if event.type == "session.deleted" and event.session_id:
                    forgotten.append(event.session_id)
                elif (
                    self.enabled and event.properties.get("status") == "completed" and event.run_id
                ):
                    exchange = await self.lookup(event.run_id)
                    if exchange is not None:
                        records.extend(self.records_for(exchange))
            except Exception:
                # One unreadable run must not stop the memory of every later one.
                log.exception("could not record the exchange of event %s", event.seq)
        last = batch[-1].seq
        stored = await self.memory.store.exchanges.commit(
            records, cursor=last, now_ms=self.memory.clock.now_ms()
        )
        for session_id in forgotten:
            await self.memory.forget_session(session_id)
        if stored:
            self.memory.events.publish(
                "memory.updated",
                {
                    "action": "exchange",
                    "count": stored,
                    "ids": [r.id for r in records][:20],
                },
                topic="memory",
            )
        self.cursor = last
        progress, self._progress = self._progress, trio.Event()
        progress.set()

    async def lookup(self, run_id: str) -> Exchange | None:
        """The user and assistant text of a completed run, or None when there is nothing
        to keep."""
        repo = self.sessions.repo
        run = await repo.get_run(run_id)
        if (
            run is None
            or run.status != "completed"
            or not run.assistant_message_id
            or not run.user_message_id
        ):
            return None
        session = await repo.get(run.session_id)
        if session is None:
            return None  # deleted since
        # By id: under load the recorder runs behind its sessions, and a search of the
        # newest messages fell back to reading whole transcripts (20-110 ms each, and a
        # burst of memory, on a soak's 600-message sessions), which put it further behind.
        messages = await repo.messages_by_id(
            run.session_id, (run.user_message_id, run.assistant_message_id)
        )
        user, assistant = messages.get(run.user_message_id), messages.get(run.assistant_message_id)
        if user is None or assistant is None:
            return None
        user_text, assistant_text = user.text().strip(), assistant.text().strip()
        if not user_text or not assistant_text:
            return None
        from .records import Exchange

        channel, conversation = run.metadata.get("channel"), run.metadata.get("conversation")
        tags = (
            channel_tags(str(channel), str(conversation))
            if run.source == "channel" and channel and conversation
            else ()
        )
        return Exchange(
            session_id=run.session_id,
            run_id=run.id,
            project_id=session.project_id,
            user_text=user_text,
            assistant_text=assistant_text,
            user_message_id=user.id,
            assistant_message_id=assistant.id,
            source=run.source,
            agent_id=run.agent_id,
            finished_at_ms=run.finished_at_ms or run.last_activity_at_ms,
            channel_tags=tags,
        )

    def records_for(self, exchange: Exchange) -> list[MemoryRecord]:
        from .records import NewRecord

        content = compact_exchange(
            exchange.user_text, exchange.assistant_text, side_chars=self.side_chars
        )
        metadata: dict[str, Any] = {
            "session_id": exchange.session_id,
            "run_id": exchange.run_id,
            "source": exchange.source,
            "user_message_id": exchange.user_message_id,
            "assistant_message_id": exchange.assistant_message_id,
            "agent_id": exchange.agent_id,
            "finished_at_ms": exchange.finished_at_ms,
        }
        tiers: list[Tier] = ["session", "project"] if exchange.project_id else ["session"]
        if exchange.channel_tags:
            # A chat conversation outlives its sessions (`/new`): its exchanges are stored once,
            # global and tagged, and found by the tag (svc/channels/exchange_memory.py).
            tiers = ["global"]
            metadata["channel_tags"] = list(exchange.channel_tags)
        now = self.memory.clock.now_ms()
        return [
            build_record(
                NewRecord(
                    content=content,
                    tier=tier,
                    session_id=exchange.session_id if tier == "session" else None,
                    project_id=None if tier == "global" else exchange.project_id,
                    run_id=exchange.run_id,
                    kind="exchange",
                    source_type="exchange",
                    tags=("exchange", *exchange.channel_tags),
                    metadata=metadata,
                    provenance={"source": "session.run.finished"},
                    source_key=f"exchange/{exchange.run_id}/{tier}",
                    chunk_index=0,
                ),
                now_ms=now,
            )
            for tier in tiers
        ]


__all__ = ["CURSOR_KEY", "ExchangeRecorder", "channel_tags", "clip", "compact_exchange"]
