"""Channel adapter benchmark (a plain script, not collected by pytest).

    /tmp/venv/bin/python tests/benchmarks/bench_channels.py

A real engine with the Telegram adapter against the loopback Bot API fake and
the fake OpenAI-compatible model, whose first content chunk is held back by
``MODEL_DELAY_S`` (a model that thinks before it answers). Two figures:

(a) latency: for each of ``PROMPTS`` prompts, one at a time, the time from the
    update leaving the fake Bot API (``getUpdates`` answers: the message
    arrives at the adapter) to the first ``editMessageText`` carrying model
    text, minus the model's own first-token time (from its request arriving
    at the fake model to its first content chunk leaving it). What remains is
    the engine's own share: the adapter, the session actor, the run, the event
    log's commit and fan-out, and the edit request. Median and p95.
(b) breadth: ``CONVERSATIONS`` conversations (each its own chat and user)
    send a message at once; every one must get its own complete answer, and
    the listener must record no error.
"""

from __future__ import annotations

import logging
import pathlib
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

import trio

import svc
from svc.channels import channels_of
from svc.events import EventFilter, EventStream
from svc.sessions import CreateSession, RunRequest
from tests.fakes._asgi import RecordedRequest, Send, serve_fake
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.telegram_server import FakeTelegram
from tests.fakes.turns import Turn

TOKEN = "4242:bench-token"
PROMPTS = 40
CONVERSATIONS = 100
MODEL_DELAY_S = 0.02


class TimedTelegram(FakeTelegram):
    """Records when each update left the server and when each chat's first model text came."""

    def __init__(self) -> None:
        super().__init__(TOKEN)
        self.arrived: dict[str, float] = {}
        self.first_text: dict[str, float] = {}

    async def _get_updates(self, payload: dict[str, Any], stop: trio.Event) -> list[Any]:
        updates = await super()._get_updates(payload, stop)
        now = time.perf_counter()
        for update in updates:
            self.arrived.setdefault(update["message"]["text"].split()[0], now)
        return updates

    def _answer(self, method: str, payload: dict[str, Any]) -> Any:
        text = str(payload.get("text") or "")
        if method == "editMessageText" and text not in ("…", ""):
            self.first_text.setdefault(text.split()[0], time.perf_counter())
        return super()._answer(method, payload)


class TimedModel(FakeOpenAI):
    """Records, per conversation marker, the model's own time to its first content chunk."""

    def __init__(self) -> None:
        super().__init__()
        self.first_token: dict[str, float] = {}
        self.received: dict[str, float] = {}
        self.first_token_at: dict[str, float] = {}
        self.default = lambda request: Turn.reply(self.last_user_text(request), delay=MODEL_DELAY_S)

    async def handle(self, request: RecordedRequest, send: Send, stop: trio.Event) -> None:
        marker = self.last_user_text(request).split()[0] if request.body else ""
        received = time.perf_counter()
        self.received.setdefault(marker, received)
        seen = False

        async def timed(message: Any) -> None:
            nonlocal seen
            body = message.get("body", b"")
            if not seen and b'"content":"' in body and b'"content":""' not in body:
                seen = True
                self.first_token.setdefault(marker, time.perf_counter() - received)
                self.first_token_at.setdefault(marker, time.perf_counter())
            await send(message)

        await super().handle(request, timed, stop)


def report(label: str, overheads: list[float], before: list[float], after: list[float]) -> None:
    overheads.sort()
    median = statistics.median(overheads) * 1000
    p95 = overheads[int(len(overheads) * 0.95) - 1] * 1000
    print(f"{label}: first model text, engine share over {len(overheads)} prompts:")
    print(f"    median {median:.1f} ms, p95 {p95:.1f} ms")
    print(
        f"    of which: message to model request {statistics.median(before) * 1000:.1f} ms, "
        f"first token to edit {statistics.median(after) * 1000:.1f} ms (medians)"
    )


async def first_delta(stream: EventStream, user_message_id: str | None) -> float:
    while True:
        for event in await stream.receive():
            part = event.properties.get("part") or {}
            if (
                event.type == "message.part.updated"
                and "delta" in event.properties
                and part.get("messageID") != user_message_id
            ):
                return time.perf_counter()


async def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        async with serve_fake(TimedTelegram()) as tg, serve_fake(TimedModel()) as model:
            settings = svc.Settings.load(
                {
                    "state_dir": root / "state",
                    "workspace": tmp,
                    "config_path": root / "config.json",
                    "global_config": root / "none.json",
                    "port": 0,
                    "default_provider": "openai",
                    "providers": {
                        "openai": {"url": model.url, "api_key": "sk-bench", "default_model": "m"}
                    },
                    "memory_exchanges": False,
                },
                environ={},
            )
            async with svc.open_engine(settings) as engine:
                service = channels_of(engine)
                await service.configure(
                    "telegram",
                    {
                        "bot_token": TOKEN,
                        "api_base_url": tg.url,
                        "allowed_users": ["*"],
                        "stream_edit_interval_ms": 100,
                        "rate_limit_prompts": 1000,
                    },
                )
                await service.listeners["telegram"].connected.wait()

                # (a) latency, one prompt at a time (the first two warm up): a new
                # conversation each time, then follow-ups in one conversation.
                for label, fresh in (("new conversations", True), ("follow-ups", False)):
                    overheads, before, after = [], [], []
                    for index in range(PROMPTS + 2):
                        chat = (10_000 if fresh else 30_000) + (index if fresh else 0)
                        marker = f"c{chat}x{index}"
                        text = f"{marker} please answer this"
                        tg.push_message(chat_id=chat, user_id=chat, text=text)
                        await tg.changes.until(lambda c=chat, t=text: t in tg.texts(c))
                        if index < 2:
                            continue
                        arrived, first = tg.arrived[marker], tg.first_text[marker]
                        overheads.append(first - arrived - model.first_token[marker])
                        before.append(model.received[marker] - arrived)
                        after.append(first - model.first_token_at[marker])
                    report(f"(a) {label}", overheads, before, after)

                # (b) breadth: many conversations at once.
                started = time.perf_counter()
                chats = [20_000 + i for i in range(CONVERSATIONS)]
                for chat in chats:
                    tg.push_message(chat_id=chat, user_id=chat, text=f"c{chat} at once")
                await tg.changes.until(lambda: all(f"c{c} at once" in tg.texts(c) for c in chats))
                elapsed = time.perf_counter() - started
                status = (await service.status())["telegram"]
                errors = status["last_error"]
                wrong = [c for c in chats if tg.texts(c)[-1] != f"c{c} at once"]
                print(
                    f"(b) {CONVERSATIONS} conversations at once: all answered in {elapsed:.2f} s, "
                    f"{len(wrong)} wrong, listener error: {errors}"
                )

                # (c) the baseline in the same run: the engine alone, no channel. A
                # prompt through the sessions service to its first text delta event.
                overheads, before, after = [], [], []
                session = await engine.sessions.create(CreateSession(title="baseline"))
                for index in range(PROMPTS + 2):
                    marker = f"base{index}"
                    with EventStream(
                        engine.events,
                        EventFilter(session_id=session.id),
                        after_seq=engine.events.last_seq,
                    ) as stream:
                        started = time.perf_counter()
                        run = await engine.sessions.prompt(
                            session.id,
                            RunRequest(parts=({"type": "text", "text": f"{marker} answer"},)),
                        )
                        first = await first_delta(stream, run.run.user_message_id)
                        await run.done.wait()
                    if index < 2:
                        continue
                    overheads.append(first - started - model.first_token[marker])
                    before.append(model.received[marker] - started)
                    after.append(first - model.first_token_at[marker])
                report("(c) baseline: sessions service alone", overheads, before, after)


if __name__ == "__main__":
    trio.run(main)
