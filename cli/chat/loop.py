"""The chat loop: read a line, run it (or a slash command), stream the answer, repeat.

Ctrl-C while a run streams cancels that run (``POST /session/{id}/abort``); a
second Ctrl-C, before another line is entered, leaves. At the prompt, the first
Ctrl-C only says how to leave.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import trio

from .client import ChatError, EngineClient, EventStream, RunConflict
from .console import Console, Interrupts
from .render import (
    HELP,
    Renderer,
    one_line,
    permission_prompt,
    permission_reply,
    question_answer,
    question_text,
)

PROMPT = "> "


class Leave(Exception):
    """The person asked to leave (Ctrl-C twice)."""


class ChatLoop:
    def __init__(
        self,
        client: EngineClient,
        console: Console,
        interrupts: Interrupts,
        *,
        session_id: str | None = None,
    ) -> None:
        self.client = client
        self.console = console
        self.interrupts = interrupts
        self.session_id = session_id
        self.armed = False
        """A Ctrl-C was pressed since the last line: the next one leaves."""
        self._ask_scope: trio.CancelScope | None = None
        self._leaving = False

    def say(self, text: str) -> None:
        self.console.write(text if text.endswith("\n") else text + "\n")

    # ------------------------------------------------------------------ main
    async def run(self) -> None:
        """Chat until end of input, /quit or a second Ctrl-C. ChatError: cannot go on."""
        await self.greet()
        while True:
            interrupted, line = await self._read_or_interrupt(PROMPT)
            if interrupted:
                if self.armed:
                    self.say("")
                    return
                self.armed = True
                self.say("\n(Ctrl-C again to leave, or /quit)")
                continue
            if line is None:
                return
            self.armed = False
            line = line.strip()
            if not line:
                continue
            self.console.remember(line)
            try:
                if line.startswith("/"):
                    if not await self.command(line):
                        return
                else:
                    await self.send(line)
            except Leave:
                self.say("")
                return
            except ChatError as exc:
                if exc.code is None and "cannot reach" in exc.message:
                    raise
                self.say(f"error: {exc.message}")

    async def _read_or_interrupt(self, prompt: str) -> tuple[bool, str | None]:
        """``(True, None)`` on Ctrl-C, else ``(False, line)`` (``None`` at end of input)."""
        outcome: list[tuple[bool, str | None]] = []
        async with trio.open_nursery() as nursery:

            async def read() -> None:
                outcome.append((False, await self.console.read_line(prompt)))
                nursery.cancel_scope.cancel()

            async def interrupt() -> None:
                await self.interrupts.next()
                outcome.append((True, None))
                nursery.cancel_scope.cancel()

            nursery.start_soon(read)
            nursery.start_soon(interrupt)
        return outcome[0]

    async def greet(self) -> None:
        providers = await self.client.providers()  # also proves the engine and token work
        effective = providers.get("effective") or {}
        route = "/".join(str(p) for p in (effective.get("provider"), effective.get("model")) if p)
        self.say(f"svc-engine chat: {self.client.url}, model {route or 'unknown'}")
        if effective.get("notice"):
            self.say(f"note: {effective['notice']}")
        if self.session_id is not None:
            session = await self.client.get_session(self.session_id)
            self.say(self._describe(session, resumed=True))
        self.say("Type /help for commands; Ctrl-C cancels a run, twice leaves.")

    @staticmethod
    def _describe(session: Mapping[str, Any], *, resumed: bool = False) -> str:
        count = len(session.get("messages") or [])
        what = "resumed session" if resumed else "session"
        return f"{what} {session.get('id')} ({count} messages)"

    async def ensure_session(self) -> str:
        if self.session_id is None:
            session = await self.client.create_session()
            self.session_id = str(session["id"])
            self.say(
                f"session {self.session_id} (resume with: svc-engine chat --session "
                f"{self.session_id})"
            )
        return self.session_id

    # ------------------------------------------------------------------ commands
    async def command(self, line: str) -> bool:
        """Run a slash command; ``False`` means leave."""
        name, _, argument = line.partition(" ")
        argument = argument.strip()
        if name in ("/quit", "/exit"):
            return False
        if name == "/help":
            self.say(HELP)
        elif name == "/new":
            self.session_id = None
            await self.ensure_session()
        elif name == "/sessions":
            await self._sessions(argument)
        elif name == "/model":
            await self._model(argument)
        else:
            self.say(f"unknown command {name}; /help lists them")
        return True

    async def _sessions(self, argument: str) -> None:
        if argument:
            session = await self.client.get_session(argument)
            self.session_id = str(session["id"])
            self.say(self._describe(session, resumed=True))
            return
        sessions = await self.client.recent_sessions()
        if not sessions:
            self.say("no sessions yet")
        for session in sessions:
            mark = "*" if session.get("id") == self.session_id else " "
            self.say(f"{mark} {session.get('id')}  {one_line(session.get('title') or '', 40)}")

    async def _model(self, argument: str) -> None:
        if not argument:
            if self.session_id is not None:
                model = (await self.client.get_session(self.session_id)).get("model") or {}
                if model.get("modelID"):
                    self.say(f"model: {model.get('providerID')}/{model.get('modelID')}")
                    return
            effective = (await self.client.providers()).get("effective") or {}
            self.say(f"model: {effective.get('provider')}/{effective.get('model')} (default)")
            return
        provider, sep, model = argument.replace(" ", "/", 1).partition("/")
        if not sep or not provider or not model:
            self.say("usage: /model PROVIDER/MODEL (e.g. /model openai/gpt-5.2)")
            return
        await self.client.set_model(await self.ensure_session(), provider, model)
        self.say(f"model: {provider}/{model} for this session")

    # ------------------------------------------------------------------ runs
    async def send(self, text: str) -> None:
        session_id = await self.ensure_session()
        async with self.client.events(session_id) as events:
            try:
                run_id: str | None = await self.client.prompt(session_id, text)
            except RunConflict as conflict:
                self.say("a run is already active in this session; following it")
                run_id = conflict.run_id
            await self._follow(events, session_id, run_id)

    async def _follow(self, events: EventStream, session_id: str, run_id: str | None) -> None:
        renderer = Renderer()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._cancel_on_interrupt, session_id, nursery.cancel_scope)
            await self._consume(events, run_id, renderer)
            nursery.cancel_scope.cancel()
        if self._leaving:
            raise Leave

    async def _cancel_on_interrupt(self, session_id: str, run_scope: trio.CancelScope) -> None:
        await self.interrupts.next()
        self.armed = True
        self.say("\n^C cancelling the run (Ctrl-C again to leave)")
        if self._ask_scope is not None:
            self._ask_scope.cancel()  # a pending approval or question: the run is going away
        try:
            await self.client.abort(session_id)
        except ChatError as exc:
            self.say(f"error: {exc.message}")
        await self.interrupts.next()
        # Leave at once, without waiting for the run's last events.
        self._leaving = True
        run_scope.cancel()

    async def _consume(self, events: EventStream, run_id: str | None, renderer: Renderer) -> None:
        while True:
            event = await events.next()
            if event is None:
                self.say("\n[the engine closed the event stream]")
                return
            props = event.get("properties") or {}
            if run_id is not None and props.get("runID") not in (run_id, None):
                continue
            kind = event.get("type")
            if kind == "permission.asked":
                self.console.write(renderer.end_line())
                await self._ask_permission(props)
            elif kind == "question.asked":
                self.console.write(renderer.end_line())
                await self._ask_questions(props)
            else:
                self.console.write(renderer.event(event))
            if kind == "session.run.finished":
                return

    async def _ask_permission(self, props: Mapping[str, Any]) -> None:
        request_id = str(props.get("requestID") or props.get("id"))
        reply: str | None = None
        answer: str | None = None
        with trio.CancelScope() as scope:
            self._ask_scope = scope
            prompt = permission_prompt(props)
            while reply is None:
                answer = await self.console.read_line(prompt, show_prompt_when_piped=True)
                reply = permission_reply(answer)
                if reply is None:
                    self.say("please answer y (once), a (always) or n (no)")
        self._ask_scope = None
        if scope.cancelled_caught or reply is None:
            return
        if answer is not None:
            self.console.remember(answer)
        try:
            await self.client.reply_permission(request_id, reply)
        except (ChatError, RunConflict):
            self.say("(that request was already answered or has expired)")

    async def _ask_questions(self, props: Mapping[str, Any]) -> None:
        question_id = str(props.get("id"))
        answers: list[list[str]] = []
        with trio.CancelScope() as scope:
            self._ask_scope = scope
            for question in props.get("questions") or []:
                self.console.write(question_text(question))
                answer = await self.console.read_line(
                    "answer (a number or your own words; empty declines): ",
                    show_prompt_when_piped=True,
                )
                if answer is None or not answer.strip():
                    answers = []
                    break
                answers.append(question_answer(answer, question))
        self._ask_scope = None
        if scope.cancelled_caught:
            return
        try:
            if answers:
                await self.client.reply_question(question_id, answers)
            else:
                await self.client.reject_question(question_id)
        except (ChatError, RunConflict):
            self.say("(that question was already answered or has expired)")
