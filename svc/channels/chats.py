"""Chat logic shared by every adapter: who may talk, sessions per conversation, runs, replies.

An adapter reports an :class:`Inbound` message or a :class:`ButtonPress`; this
module decides what happens:

* a sender not allowed (``allowed_users``: empty means nobody, ``*`` everyone)
  is ignored, and so is a group message that does not mention the bot when
  ``mention_only`` holds: nothing is stored, nothing is answered;
* slash commands by tier: ``/help`` and ``/status`` (read), ``/new`` and
  ``/cancel`` (act); buttons answering approvals and questions need approve;
* a prompt passes the per-user rate limit, finds (or creates) the session of
  its conversation, and runs there with the channel's model and tool
  preferences; the answer streams into one message (:mod:`.streaming`);
  permission asks and questions of the run appear with buttons; earlier
  exchanges of the conversation are recalled (:mod:`.exchange_memory`; the
  memory's exchange recorder stores each completed one, tagged).

Prompts of one conversation take turns (``SerialByKey``), so a second message
waits for the first answer instead of meeting a run conflict; buttons and
``/cancel`` never wait for a turn (the run they concern holds it).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import trio

from actors import SerialByKey

from ..errors import SvcError
from ..events import Event, EventFilter, EventStream, StreamEnded
from .config import TIERS, ChannelConfig
from .exchange_memory import ExchangeMemory
from .platform import Button, ButtonPress, ChatPlatform, Inbound
from .ratelimit import RateLimiter
from .repository import ChannelRepository
from .streaming import StreamedReply

if TYPE_CHECKING:
    from ..engine import Engine
    from ..sessions import RunRequest, RunStarted

log = logging.getLogger("svc.channels")

COMMAND_TIERS = {"help": "read", "start": "read", "status": "read", "new": "act", "cancel": "act"}
RUN_ENDED = EventFilter(types=frozenset({"session.run.finished"}))
SLOT_RETRY_S = 1.0
PERMISSION_BUTTONS = (("Allow once", "once"), ("Always allow", "always"), ("Deny", "reject"))

HELP = (
    "{name} commands:\n"
    "/new: start a fresh session\n"
    "/status: what this conversation is doing\n"
    "/cancel: stop the answer in progress\n"
    "/help: this list"
)


def _at_least(tier: str | None, wanted: str) -> bool:
    return tier is not None and TIERS.index(tier) >= TIERS.index(wanted)


class ChannelChats:
    """See the module docstring. One instance serves every channel of an engine."""

    def __init__(self, engine: Engine, repo: ChannelRepository, limiter: RateLimiter) -> None:
        self.engine = engine
        self.repo = repo
        self.limiter = limiter
        self.memory = ExchangeMemory(engine.memory)
        self._turns = SerialByKey()
        self.active: dict[str, set[str]] = {}
        """Conversations with a prompt in progress, per channel."""
        self.prompts_answered = 0

    # ------------------------------------------------------------------ inbound
    async def handle_message(
        self, platform: ChatPlatform, config: ChannelConfig, message: Inbound
    ) -> None:
        """Act on one message (see the module docstring); never raises for a chat problem."""
        tier = config.tier_of(message.user_ids)
        if tier is None:
            log.info("ignored a %s message from a user who is not allowed", message.channel)
            return
        if message.is_group and config.wants_mention(message.channel) and not message.mentioned:
            return
        text = message.text.strip()
        if text.startswith("/"):
            command = text[1:].split(maxsplit=1)[0].split("@", 1)[0].lower() if text[1:] else ""
            if command in COMMAND_TIERS:
                # Every effect waits until the message is recorded as received (a prompt's
                # reads need not: _run_prompt).
                await message.wait_recorded()
                await self._command(platform, config, message, command, tier)
                return
        if not _at_least(tier, "act"):
            await message.wait_recorded()
            await platform.send(message.conversation, "You may read status here, not prompt.")
            return
        if not text and not message.uploads:
            return
        wait = self.limiter.admit(
            message.channel,
            message.user,
            limit=config.rate_limit_prompts,
            window_s=config.rate_limit_window_s,
        )
        if wait is not None:
            await message.wait_recorded()
            await platform.send(
                message.conversation,
                f"You are sending messages faster than I can answer; please wait {wait} s "
                "and try again.",
            )
            return
        async with self._turns.turn((message.channel, message.conversation)):
            await self._prompt(platform, config, message)

    async def handle_button(
        self, platform: ChatPlatform, config: ChannelConfig, press: ButtonPress
    ) -> str:
        """Answer an approval or question button; returns the text to acknowledge it with."""
        if not _at_least(config.tier_of(press.user_ids), "approve"):
            return "You are not allowed to answer approvals here."
        kind, _, rest = press.data.partition(":")
        request_id, _, choice = rest.rpartition(":")
        session_id = await self.repo.session_of(press.channel, press.conversation)
        decided_by = f"{press.channel}:{press.user_ids[0] if press.user_ids else ''}"
        try:
            if kind == "p":
                request = await self.engine.permissions.get(request_id)
                if request is None or request.session_id != session_id or session_id is None:
                    return "That approval is not for this conversation."
                await self.engine.permissions.reply(request_id, choice, decided_by=decided_by)
                label = dict((value, text) for text, value in PERMISSION_BUTTONS).get(choice)
                answer = f"{label or choice}: {request.tool}"
            elif kind == "q":
                question = await self.engine.questions.get(request_id)
                if question is None or question.session_id != session_id or session_id is None:
                    return "That question is not for this conversation."
                options = question.questions[0].get("options", []) if question.questions else []
                index = int(choice) if choice.isdigit() else -1
                if not 0 <= index < len(options):
                    return "That answer is not one of the options."
                label = str(options[index].get("label", ""))
                await self.engine.questions.reply(request_id, {"answers": [[label]]})
                answer = f"Answered: {label}"
            else:
                return "Unknown button."
        except SvcError as error:
            return error.message
        if press.message_id is not None:
            try:
                await platform.edit(press.conversation, press.message_id, answer)
            except Exception:
                # The decision is made; failing to restyle its message changes nothing.
                log.warning("could not update a %s approval message", press.channel)
        return answer

    # ------------------------------------------------------------------ commands
    async def _command(
        self,
        platform: ChatPlatform,
        config: ChannelConfig,
        message: Inbound,
        command: str,
        tier: str,
    ) -> None:
        if not _at_least(tier, COMMAND_TIERS[command]):
            await platform.send(message.conversation, f"/{command} needs more rights than yours.")
            return
        conversation = message.conversation
        if command in ("help", "start"):
            await platform.send(conversation, HELP.format(name=self._assistant_name()))
        elif command == "new":
            await self._new_session(config, message)
            await platform.send(conversation, "Started a fresh session.")
        elif command == "cancel":
            session_id = await self.repo.session_of(message.channel, conversation)
            cancelled = session_id is not None and await self.engine.sessions.cancel(session_id)
            await platform.send(
                conversation, "Cancelled." if cancelled else "Nothing is running here."
            )
        elif command == "status":
            await platform.send(conversation, await self._status_text(message))

    async def _status_text(self, message: Inbound) -> str:
        session_id = await self.repo.session_of(message.channel, message.conversation)
        name = self._assistant_name()
        if session_id is None:
            return f"{name} here. No session yet: send a message to start one."
        run = await self.engine.sessions.active_run(session_id)
        state = f"answering (run {run.id})" if run is not None else "idle"
        return f"{name} here. Session {session_id}: {state}."

    def _assistant_name(self) -> str:
        identity = self.engine.identity
        return identity.current().name if identity is not None else "The assistant"

    # ------------------------------------------------------------------ prompts
    async def _session_for(self, config: ChannelConfig, message: Inbound) -> str:
        session_id = await self.repo.session_of(message.channel, message.conversation)
        if session_id is not None:
            return session_id
        await message.wait_recorded()
        return await self._new_session(config, message)

    async def _new_session(self, config: ChannelConfig, message: Inbound) -> str:
        from ..sessions import CreateSession

        session = await self.engine.sessions.create(
            CreateSession(
                title=f"{message.channel} {message.conversation}",
                provider_id=config.model_provider_id if config.model_id else None,
                model_id=config.model_id if config.model_provider_id else None,
                source_kind="channel",
                source_metadata={
                    "channel": message.channel,
                    "conversation": message.conversation,
                    "user_id": message.user,
                },
            )
        )
        await self.repo.bind(
            message.channel, message.conversation, session.id, now_ms=self.engine.clock.now_ms()
        )
        return session.id

    def _request(
        self,
        config: ChannelConfig,
        message: Inbound,
        parts: list[dict[str, Any]],
        recalled: list[str],
    ) -> RunRequest:
        from ..sessions import RunRequest

        system = [
            f"You are {self._assistant_name()}, answering in a {message.channel} chat. "
            "Keep answers readable as chat messages."
        ]
        if recalled:
            system.append("Earlier exchanges in this conversation:\n" + "\n---\n".join(recalled))
        prefs = config.tool_preferences
        return RunRequest(
            parts=tuple(parts),
            provider_id=config.model_provider_id if config.model_id else None,
            model_id=config.model_id if config.model_provider_id else None,
            tool_allowlist=prefs.allowlist(),
            tool_denylist=tuple(prefs.disabled_tools),
            system="\n\n".join(system),
            source="channel",
            metadata={
                "channel": message.channel,
                "conversation": message.conversation,
                "user_id": message.user,
            },
        )

    async def _prompt(
        self, platform: ChatPlatform, config: ChannelConfig, message: Inbound
    ) -> None:
        active = self.active.setdefault(message.channel, set())
        active.add(message.conversation)
        try:
            await self._run_prompt(platform, config, message)
        finally:
            active.discard(message.conversation)

    async def _run_prompt(
        self, platform: ChatPlatform, config: ChannelConfig, message: Inbound
    ) -> None:
        """Run one prompt and stream its answer."""
        sessions = self.engine.sessions
        found: dict[str, Any] = {}

        async def session() -> None:
            found["session"] = await self._session_for(config, message)

        async def recall() -> None:
            found["recalled"] = await self.memory.recall(
                message.channel, message.conversation, message.text
            )

        reply = StreamedReply(
            platform, message.conversation, interval_s=config.stream_edit_interval_ms / 1000
        )

        # Independent reads: the conversation's session and its remembered exchanges.
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session)
            nursery.start_soon(recall)
        await message.wait_recorded()  # before any effect: the placeholder, the run
        session_id: str = found["session"]
        parts: list[dict[str, Any]] = []
        if message.text.strip():
            parts.append({"type": "text", "text": message.text})
        for upload in message.uploads:
            parts.append(
                {
                    "type": "file",
                    "mime": upload.mime,
                    "filename": upload.filename,
                    "url": "file://" + upload.path,
                }
            )
        request = self._request(config, message, parts, found["recalled"])
        events = self.engine.events
        # Subscribed before the run starts, so no delta can fall before the stream.
        with EventStream(
            events, EventFilter(session_id=session_id), after_seq=events.last_seq
        ) as stream:
            async with trio.open_nursery() as nursery:
                # The placeholder is posted while the run starts (its store write), not
                # after, when the run is building its model request.
                nursery.start_soon(reply.open)
                try:
                    started = await self._start_run(session_id, request)
                except SvcError as error:
                    await reply.opened.wait()
                    await reply.finish(f"I could not start an answer: {error.message}")
                    raise
                run_id, user_message_id = started.run.id, started.run.user_message_id
                nursery.start_soon(reply.pump)
                await self._follow(platform, message, stream, run_id, user_message_id, reply)
                # The answer is complete: stop showing partial text (once the placeholder
                # it replaces is posted, so no stray one is left behind).
                await reply.opened.wait()
                nursery.cancel_scope.cancel()
        run = await sessions.wait(started)
        text = await sessions.reply_text(run)
        if run.status != "completed":
            text = text or f"The answer ended early ({run.status})."
        await reply.finish(text)
        self.prompts_answered += 1

    async def _start_run(self, session_id: str, request: RunRequest) -> RunStarted:
        """Start the run, waiting for a free run slot when the engine is at its limit.

        A chat has no client to retry for it: a burst of conversations past
        ``max_concurrent_runs`` queues here instead of failing.
        """
        from ..limits import RunLimitReached

        events = self.engine.events
        while True:
            # Subscribed before trying, so a run ending in between is not missed.
            with EventStream(events, RUN_ENDED, after_seq=events.last_seq) as ended:
                try:
                    return await self.engine.sessions.prompt(session_id, request)
                except RunLimitReached:
                    # Woken by any run's end; the bound covers a slot freed without one.
                    with trio.move_on_after(SLOT_RETRY_S):
                        await ended.receive()

    async def _follow(
        self,
        platform: ChatPlatform,
        message: Inbound,
        stream: EventStream,
        run_id: str,
        user_message_id: str | None,
        reply: StreamedReply,
    ) -> None:
        """Feed the run's events to the reply until the run finishes."""
        while True:
            try:
                batch = await stream.receive()
            except StreamEnded:
                return  # the engine is shutting down
            for event in batch:
                if event.run_id not in (None, run_id):
                    continue
                if event.type == "session.run.finished" and event.run_id == run_id:
                    return
                await self._on_event(platform, message, event, user_message_id, reply)

    async def _on_event(
        self,
        platform: ChatPlatform,
        message: Inbound,
        event: Event,
        user_message_id: str | None,
        reply: StreamedReply,
    ) -> None:
        props = event.properties
        if event.type == "message.part.updated":
            part = props.get("part") or {}
            delta = props.get("delta")
            if (
                isinstance(delta, str)
                and part.get("type") == "text"
                and part.get("messageID") != user_message_id
            ):
                reply.add(delta)
        elif event.type == "permission.asked":
            request_id = str(props.get("requestID"))
            buttons = tuple(
                Button(label, f"p:{request_id}:{value}") for label, value in PERMISSION_BUTTONS
            )
            await platform.send(
                message.conversation,
                f"Approval needed: the assistant wants to use `{props.get('tool')}`.",
                buttons=buttons,
            )
        elif event.type == "question.asked":
            questions = props.get("questions") or []
            if not questions:
                return
            first = questions[0]
            options = first.get("options") or []
            buttons = tuple(
                Button(str(option.get("label", ""))[:40], f"q:{props.get('id')}:{index}")
                for index, option in enumerate(options[:10])
            )
            await platform.send(
                message.conversation, str(first.get("question", "")), buttons=buttons
            )

    def active_sessions(self, channel: str) -> int:
        return len(self.active.get(channel, ()))


__all__ = ["ChannelChats"]
