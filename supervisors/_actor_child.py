"""Actors as supervised children: a ChildSpec whose incarnations are ``system.run`` calls."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable

import trio

from actors import Actor, ActorExit, ActorRef, ActorSystem

from ._spec import ChildSpec, Restart

MakeActor = Callable[[], "Actor | Awaitable[Actor | None] | None"]


async def run_actor_child(
    system: ActorSystem,
    name: str,
    make_actor: MakeActor,
    *,
    task_status: trio.TaskStatus[ActorRef | None] = trio.TASK_STATUS_IGNORED,
) -> ActorExit | None:
    """One incarnation: build a fresh actor with ``make_actor()`` and run it under ``name``.

    A fresh actor per incarnation is the point: a restart after a crash rehydrates clean state
    instead of reusing the object that crashed. If ``make_actor()`` returns None (the entity no
    longer exists), the incarnation ends normally at once, so a transient child is dropped.
    """
    actor = make_actor()
    if inspect.isawaitable(actor):
        actor = await actor
    if actor is None:
        task_status.started(None)
        return None
    return await system.run(name, actor, task_status=task_status)


def actor_child_spec(
    system: ActorSystem,
    name: str,
    make_actor: MakeActor,
    *,
    restart: Restart = Restart.PERMANENT,
    shutdown_grace: float = 5.0,
) -> ChildSpec:
    """ChildSpec running an actor (for static trees; DynamicSupervisor.start_actor uses it too).

    id = ``name``; each incarnation runs a fresh actor from ``make_actor()`` (sync or async);
    graceful stop = ``system.stop(name)``, which goes through the name so it reaches whichever
    incarnation is current. ``stopped()`` is bounded by the actor's own ``stop_grace`` even if
    ``shutdown_grace`` runs out first.
    """
    return ChildSpec(
        id=name,
        start=functools.partial(run_actor_child, system, name, make_actor),
        restart=restart,
        shutdown_grace=shutdown_grace,
        stop=functools.partial(system.stop, name),
    )
