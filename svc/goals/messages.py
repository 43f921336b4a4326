"""What the goal actor is asked: the mutations of a goal, one message each, and its state.

Each request answers a :data:`Reply` (the goal and what the operation reports, its wire
body); :class:`GetGoal` answers the goal itself.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..entities import Ask
from .completion import CompletionRequest
from .goal import Goal
from .kernel import TransitionRequest
from .tenancy import Caller

Reply = dict[str, Any]
"""What a mutation answers: the goal and what the operation reports (its wire body)."""


@attrs.frozen
class Transition(Ask[Reply]):
    caller: Caller
    request: TransitionRequest


@attrs.frozen
class Complete(Ask[Reply]):
    caller: Caller
    request: CompletionRequest


@attrs.frozen
class Pause(Ask[Reply]):
    caller: Caller
    reason: str


@attrs.frozen
class Resume(Ask[Reply]):
    caller: Caller
    reason: str


@attrs.frozen
class Cancel(Ask[Reply]):
    caller: Caller
    reason: str


@attrs.frozen
class DecideHandoff(Ask[Reply]):
    caller: Caller
    handoff_id: str
    decision: Any
    reason: str | None = None


@attrs.frozen
class ResolveWait(Ask[Reply]):
    caller: Caller
    wait_id: str
    idempotency_key: str
    payload: Any = None


@attrs.frozen
class DispatchAction(Ask[Reply]):
    caller: Caller
    action_id: str
    body: Any


@attrs.frozen
class GetGoal(Ask[Goal]):
    pass


__all__ = [
    "Cancel",
    "Complete",
    "DecideHandoff",
    "DispatchAction",
    "GetGoal",
    "Pause",
    "Reply",
    "ResolveWait",
    "Resume",
    "Transition",
]
