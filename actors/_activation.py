"""Lazy activation: factories registered by name prefix, and single-flight get-or-spawn."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import attrs
import trio

from ._errors import ActorError, ActorNotFound
from ._groups import only_cancelled

if TYPE_CHECKING:
    from ._actor import Actor
    from ._ref import ActorRef

Factory = Callable[[str], Awaitable["Actor | None"]]
Spawner = Callable[[str, "Actor"], Awaitable["ActorRef"]]


@attrs.frozen
class Registration:
    """A factory registered for names starting with ``prefix``; ``spawner`` None = system.spawn."""

    prefix: str
    factory: Factory
    spawner: Spawner | None


class Factories:
    """Factories by prefix; the longest matching prefix wins."""

    def __init__(self) -> None:
        self._by_prefix: dict[str, Registration] = {}

    def register(self, prefix: str, factory: Factory, spawner: Spawner | None) -> None:
        self._by_prefix[prefix] = Registration(prefix, factory, spawner)

    def match(self, name: str) -> Registration | None:
        best: Registration | None = None
        for prefix, registration in self._by_prefix.items():
            if name.startswith(prefix) and (best is None or len(prefix) > len(best.prefix)):
                best = registration
        return best


class Activation:
    """One activation in flight, shared by every concurrent get_or_spawn() for its name."""

    __slots__ = ("done", "error", "name", "ref")

    def __init__(self, name: str) -> None:
        self.name = name
        self.done = trio.Event()
        self.ref: ActorRef | None = None
        self.error: BaseException | None = None

    async def result(self) -> ActorRef | None:
        """Wait for the activator; return its ref, or None if it was cancelled (try again).

        The activator's own failure is re-raised here as a fresh exception (ActorNotFound, or
        ActorError wrapping it), so one exception object never unwinds through several tasks.
        """
        await self.done.wait()
        if self.ref is not None:
            return self.ref
        error = self.error
        if error is None or only_cancelled(error):
            return None
        if isinstance(error, ActorNotFound):
            raise ActorNotFound(self.name) from error
        raise ActorError(self.name, error) from error
