"""What mission supervisors and instance actors need from the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote

import attrs

from actors import ActorRef

from ..entities import DEFAULT_ASK_TIMEOUT, Ask, ask_ref
from .events import TeamEvents
from .repository import TeamsRepository

if TYPE_CHECKING:
    from ..engine import Engine

ACTOR_PREFIX = "team/"

RUN_STOP_GRACE_S = 10.0
"""How long an ending instance waits for its cancelled run to record its end."""


@attrs.frozen
class RuntimePolicy:
    """The parts of the spawn policy an instance applies while it runs."""

    push_requires_approval: bool = False
    cost_per_1k_tokens_usd: float | None = None


@attrs.define(eq=False)
class TeamsContext:
    engine: Engine
    repo: TeamsRepository
    events: TeamEvents

    def now_ms(self) -> int:
        return self.engine.clock.now_ms()


R = TypeVar("R")


async def ask(ref: ActorRef, message: Ask[R], *, timeout: float = DEFAULT_ASK_TIMEOUT) -> R:
    """Ask a mission supervisor or an instance actor (``ask_ref``, typed by the message)."""
    reply: R = await ask_ref(ref, message, timeout=timeout)
    return reply


def mission_actor_name(mission_id: str) -> str:
    # Quoted so a mission id with a slash cannot collide with an instance name.
    return ACTOR_PREFIX + quote(mission_id, safe="")


def instance_actor_name(mission_id: str, instance_id: str) -> str:
    return f"{mission_actor_name(mission_id)}/{quote(instance_id, safe='')}"


__all__ = [
    "ACTOR_PREFIX",
    "RUN_STOP_GRACE_S",
    "RuntimePolicy",
    "TeamsContext",
    "ask",
    "instance_actor_name",
    "mission_actor_name",
]
