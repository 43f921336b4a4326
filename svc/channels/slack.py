"""Slack: the Events API (inbound, signed) and the Web API (outbound).

Slack posts events to ``POST /channels/slack/events``. Each request is
checked with slack-sdk's ``SignatureVerifier`` (pure computation: HMAC-SHA256
over ``v0:<timestamp>:<body>`` with the signing secret, constant-time
comparison, timestamps more than five minutes away refused) under the
engine's clock; a request that fails is refused before anything is parsed.
The URL verification challenge is answered; ``message`` and ``app_mention``
events become prompts; interactive payloads (``block_actions``, form-encoded)
answer approvals. Events are acknowledged at once and handled in the
listener's nursery (Slack wants an answer within three seconds), and Slack's
retries are recognised by event id.

Outbound: ``chat.postMessage``, ``chat.update`` (streamed answers, buttons as
Block Kit actions), ``auth.test`` (verification, the bot's user id for
mentions); ``429`` is waited out with its ``Retry-After``.
"""

from __future__ import annotations

import json
import logging
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import trio

from .config import MESSAGE_LIMITS, ChannelConfig
from .listener import ChannelListener, PlatformAuthFailed, PlatformError
from .platform import Button, ButtonPress, Inbound

if TYPE_CHECKING:
    from ..clock import Clock

log = logging.getLogger("svc.channels")

MAX_RETRIES = 3
SEEN_EVENTS = 1000
_MENTION = re.compile(r"<@([A-Z0-9]+)>")


class SlackListener(ChannelListener):
    name = "slack"
    message_limit = MESSAGE_LIMITS["slack"]
    bot_user_id: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._seen: OrderedDict[str, None] = OrderedDict()

    # ------------------------------------------------------------------ Web API
    async def call(self, method: str, payload: Mapping[str, Any] | None = None) -> Any:
        url = f"{self.config.api_base('slack')}/{method}"
        headers = {"Authorization": f"Bearer {self.config.bot_token}"}
        for _attempt in range(MAX_RETRIES + 1):
            response = await self.context.http.post(
                url, json=dict(payload or {}), headers=headers, timeout=30.0
            )
            if response.status_code == 429:
                await trio.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            try:
                body = response.json()
            except ValueError:
                body = {}
            if not body.get("ok"):
                error = str(body.get("error") or f"HTTP {response.status_code}")
                if error in ("invalid_auth", "not_authed", "account_inactive", "token_revoked"):
                    raise PlatformAuthFailed(f"Slack refused the bot token ({error})")
                raise PlatformError(f"Slack {method}: {error}", platformStatus=response.status_code)
            return body
        raise PlatformError(f"Slack {method}: still rate limited", platformStatus=429)

    async def send(self, conversation: str, text: str, *, buttons: tuple[Button, ...] = ()) -> str:
        channel, thread = _split(conversation)
        payload: dict[str, Any] = {"channel": channel, "text": text}
        if thread:
            payload["thread_ts"] = thread
        if buttons:
            payload["blocks"] = _blocks(text, buttons)
        body = await self.call("chat.postMessage", payload)
        return str(body.get("ts"))

    async def edit(
        self, conversation: str, message_id: str, text: str, *, buttons: tuple[Button, ...] = ()
    ) -> None:
        channel, _ = _split(conversation)
        payload: dict[str, Any] = {"channel": channel, "ts": message_id, "text": text}
        payload["blocks"] = _blocks(text, buttons) if buttons else []
        await self.call("chat.update", payload)

    async def verify(self) -> dict[str, object]:
        body = await self.call("auth.test")
        return {"ok": True, "user_id": body.get("user_id"), "team": body.get("team")}

    # ------------------------------------------------------------------ listening
    async def session(self) -> None:
        body = await self.call("auth.test")
        self.bot_user_id = str(body.get("user_id") or "") or None
        self.mark_connected()
        await trio.sleep_forever()

    def first_time(self, key: str) -> bool:
        """False for an event Slack retried (it is acknowledged but not handled twice)."""
        if key in self._seen:
            return False
        self._seen[key] = None
        while len(self._seen) > SEEN_EVENTS:
            self._seen.popitem(last=False)
        return True

    def dispatch(self, payload: Mapping[str, Any]) -> None:
        """Handle an already verified event or interaction in the background."""
        if self.handlers is None:
            log.warning("a Slack event arrived while the listener was not running")
            return
        self.spawn(self._payload, payload)

    async def _payload(self, payload: Mapping[str, Any]) -> None:
        if payload.get("type") == "block_actions":
            await self._action(payload)
        else:
            await self._event(payload.get("event") or {})

    async def _event(self, event: Mapping[str, Any]) -> None:
        if event.get("type") not in ("message", "app_mention"):
            return
        if event.get("bot_id") or event.get("subtype") or not event.get("user"):
            return  # our own posts, edits and joins are not prompts
        channel, ts = str(event.get("channel")), str(event.get("ts"))
        if not self.first_time(f"msg:{channel}:{ts}"):
            return  # the same message arrives as `message` and as `app_mention`
        thread = event.get("thread_ts")
        conversation = f"{channel}:{thread}" if thread else channel
        text = str(event.get("text") or "")
        mentioned = event.get("type") == "app_mention" or (
            self.bot_user_id is not None and f"<@{self.bot_user_id}>" in text
        )
        text = _MENTION.sub("", text).strip()
        await self.context.chats.handle_message(
            self,
            self.config,
            Inbound(
                channel="slack",
                conversation=conversation,
                user_ids=(str(event.get("user")),),
                text=text,
                is_group=event.get("channel_type") not in ("im",),
                mentioned=mentioned,
                message_id=ts,
            ),
        )

    async def _action(self, payload: Mapping[str, Any]) -> None:
        actions = payload.get("actions") or []
        if not actions:
            return
        channel = str((payload.get("channel") or {}).get("id"))
        message = payload.get("message") or {}
        thread = message.get("thread_ts")
        press = ButtonPress(
            channel="slack",
            conversation=f"{channel}:{thread}" if thread else channel,
            user_ids=(str((payload.get("user") or {}).get("id")),),
            data=str(actions[0].get("value") or ""),
            message_id=str(message.get("ts")) if message.get("ts") else None,
        )
        await self.context.chats.handle_button(self, self.config, press)


def signature_valid(secret: str, headers: Mapping[str, str], body: bytes, clock: Clock) -> bool:
    from slack_sdk.signature import Clock as SlackClock
    from slack_sdk.signature import SignatureVerifier

    class EngineClock(SlackClock):
        """The verifier's clock over the engine's (MockClock in tests)."""

        def now(self) -> float:
            return clock.now_ms() / 1000

    lowered = {k.lower(): v for k, v in headers.items()}
    timestamp = lowered.get("x-slack-request-timestamp", "")
    if not timestamp.strip().lstrip("-").isdigit():
        return False  # the verifier would raise on a non-number
    verifier = SignatureVerifier(secret, clock=EngineClock())
    return verifier.is_valid_request(body, lowered)


async def handle_slack_request(
    config: ChannelConfig | None,
    listener: ChannelListener | None,
    headers: Mapping[str, str],
    body: bytes,
    *,
    clock: Clock,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Verify, then answer the challenge or hand the event to the listener."""
    refused: tuple[int, dict[str, Any], dict[str, str]] = (
        401,
        {"error": "invalid Slack request signature", "code": "AUTH_REQUIRED", "retryable": False},
        {},
    )
    if config is None or not config.signing_secret:
        return (
            404,
            {
                "error": "Slack is not configured",
                "code": "CHANNEL_NOT_CONFIGURED",
                "retryable": False,
            },
            {},
        )
    if not signature_valid(config.signing_secret, headers, body, clock):
        return refused
    lowered = {k.lower(): v for k, v in headers.items()}
    content_type = lowered.get("content-type", "").split(";", 1)[0].strip().lower()
    try:
        if content_type == "application/x-www-form-urlencoded":
            form = parse_qs(body.decode("utf-8"))
            payload = json.loads(form.get("payload", ["{}"])[0])
        else:
            payload = json.loads(body or b"{}")
    except (UnicodeDecodeError, ValueError):
        return (
            400,
            {
                "error": "the body is not a Slack payload",
                "code": "VALIDATION_FAILED",
                "retryable": False,
            },
            {},
        )
    if not isinstance(payload, dict):
        return (
            400,
            {
                "error": "the body is not a Slack payload",
                "code": "VALIDATION_FAILED",
                "retryable": False,
            },
            {},
        )
    if payload.get("type") == "url_verification":
        return 200, {"challenge": str(payload.get("challenge", ""))}, {}
    if isinstance(listener, SlackListener):
        event_id = payload.get("event_id")
        if not event_id or listener.first_time(f"event:{event_id}"):
            listener.dispatch(payload)
    return 200, {"ok": True}, {}


def _split(conversation: str) -> tuple[str, str | None]:
    channel, _, thread = conversation.partition(":")
    return channel, thread or None


def _blocks(text: str, buttons: tuple[Button, ...]) -> list[dict[str, Any]]:
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": text}},
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "text": {"type": "plain_text", "text": b.label},
                    "action_id": f"svc_{index}",
                    "value": b.data,
                }
                for index, b in enumerate(buttons)
            ],
        },
    ]


__all__ = ["SlackListener", "handle_slack_request", "signature_valid"]
