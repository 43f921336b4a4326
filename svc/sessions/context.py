"""What the model sees: the system prompt and the transcript as chat messages.

Transcripts are stored as messages of parts. An assistant message holds, in
order, the text and tool parts of every step of its run; here each step
becomes an assistant message carrying its tool calls followed by one ``tool``
message per result, which is how every provider expects tool use to look.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..identity import resolve_identity
from ..providers.types import ChatMessage, ToolCall
from ..settings import Settings
from .parts import model_content
from .records import Message, Session, environment

HISTORY_MESSAGES = 60
"""Earlier messages replayed to the model (the newest ones)."""

MODEL_TOOL_OUTPUT_CHARS = 16_000


def system_prompt(
    settings: Settings,
    session: Session,
    *,
    extra: str | None,
    now_ms: int,
    agent: str | None = None,
) -> str:
    # Name and personality come from the identity settings (svc.identity):
    # AGENT_BOT_NAME / AGENT_PERSONA, config files, PATCH /config/identity,
    # with the agent's own override when it has one.
    identity = resolve_identity(settings)
    name = identity.name
    env = environment()
    today = datetime.datetime.fromtimestamp(now_ms / 1000, tz=datetime.UTC).date().isoformat()
    lines = [
        f"You are {name}, an agent running in a local automation runtime.",
        f"Workspace: {session.directory} ({env['os']}, {env['shell_family']} shell).",
        f"Current date: {today}.",
        "Use the tools you are given when they help; answer directly when they do not.",
    ]
    personality = identity.instructions_for(agent)
    if personality:
        lines.append(personality)
    if extra:
        lines.append(extra)
    return "\n".join(lines)


def clip_for_model(text: str) -> str:
    if len(text) <= MODEL_TOOL_OUTPUT_CHARS:
        return text
    return text[:MODEL_TOOL_OUTPUT_CHARS] + f"\n[output truncated: {len(text)} characters in all]"


def tool_result_text(part: Mapping[str, Any]) -> tuple[str, bool]:
    """What the model is told about a finished tool part, and whether it failed."""
    state = part.get("state")
    if state == "completed":
        return clip_for_model(str(part.get("result") or "")), False
    if state == "denied":
        return (
            f"Permission denied for tool `{part.get('tool')}`: {part.get('error') or 'denied'}",
            True,
        )
    return f"Tool `{part.get('tool')}` failed: {part.get('error') or 'unknown error'}", True


def assistant_turns(parts: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    """Split one assistant message's parts into provider turns (see module docstring)."""
    out: list[ChatMessage] = []
    text: list[str] = []
    calls: list[Mapping[str, Any]] = []

    def flush() -> None:
        if not text and not calls:
            return
        out.append(
            ChatMessage(
                role="assistant",
                content="".join(text),
                tool_calls=tuple(
                    ToolCall(
                        id=str(c.get("id")),
                        name=str(c.get("tool")),
                        arguments=dict(c.get("args") or {}),
                    )
                    for c in calls
                ),
            )
        )
        for call in calls:
            result, failed = tool_result_text(call)
            out.append(
                ChatMessage(
                    role="tool",
                    content=result,
                    tool_call_id=str(call.get("id")),
                    name=str(call.get("tool")),
                    is_error=failed,
                )
            )
        text.clear()
        calls.clear()

    for part in parts:
        kind = part.get("type")
        if kind == "text":
            if calls:
                flush()
            text.append(str(part.get("text", "")))
        elif kind == "tool" and part.get("state") in ("completed", "failed", "denied"):
            calls.append(part)
    flush()
    return out


def history_messages(
    messages: Sequence[Message], *, workspace: Path, vision: bool
) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for message in list(messages)[-HISTORY_MESSAGES:]:
        if message.role == "user":
            content, images = model_content(message.parts, workspace=workspace, vision=vision)
            out.append(ChatMessage(role="user", content=content, images=images))
        elif message.role == "assistant":
            out.extend(assistant_turns(message.parts))
    return out
