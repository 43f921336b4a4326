"""The messages of mission supervisors and instance actors (docs/teams.md, "Message flow").

A message that is asked subclasses :class:`~svc.entities.Ask` ``[R]`` with its
reply type, so :func:`.context.ask` callers are typed.
"""

from __future__ import annotations

import attrs

from actors import ActorRef
from supervisors import BudgetLimits

from ..entities import Ask
from ..sessions import RunRequest, RunStarted
from .context import RuntimePolicy
from .records import Instance, SpawnRequest


# ------------------------------------------------------------------ to a mission supervisor
@attrs.frozen
class StartInstance(Ask[ActorRef]):
    """Record and start an instance under the mission; replies with its actor's ref."""

    instance: Instance
    runtime: RuntimePolicy
    limits: BudgetLimits
    """The policy's current mission limits (applied when no instance is running)."""
    prompt: str | None = None
    spawned_by: SpawnRequest | None = None


@attrs.frozen
class CheckMission(Ask[str | None]):
    """Is there budget left for a new instance? Replies with the refusal reason or None."""

    limits: BudgetLimits


@attrs.frozen
class CancelMission(Ask[list[str]]):
    """Cancel the mission's scope; replies with the ids of the instances that were running."""

    reason: str


@attrs.frozen
class InstanceEnded:
    """Told to the mission supervisor when an instance has recorded its end."""

    instance_id: str


# ------------------------------------------------------------------ to an instance actor
@attrs.frozen
class PromptInstance(Ask[RunStarted]):
    request: RunRequest


@attrs.frozen
class CancelInstance(Ask[None]):
    """Cancel the instance's scope (and so its run); it then records its end and stops."""

    reason: str


@attrs.frozen
class GetRemaining(Ask[BudgetLimits]):
    pass


@attrs.frozen
class InstanceView:
    run_id: str | None
    """The run the instance is following (its first task's, right after a spawn)."""
    status: str


@attrs.frozen
class DescribeInstance(Ask[InstanceView]):
    pass


__all__ = [
    "CancelInstance",
    "CancelMission",
    "CheckMission",
    "DescribeInstance",
    "GetRemaining",
    "InstanceEnded",
    "InstanceView",
    "PromptInstance",
    "StartInstance",
]
