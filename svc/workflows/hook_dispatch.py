"""Hook dispatch: every new event an active hook matches starts a run of that hook's actions.

:class:`HookDispatcher` is a long-running child of the engine. It indexes the active hooks of
each registry the catalog installs and reads the event log only while at least one hook is
active. Each hook fires at most once per event, never on the events of its own run, and hook
runs triggering hook runs stop at :data:`MAX_HOOK_CHAIN`.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import trio

from ..events import Event, EventFilter, EventStream, StreamEnded
from .definitions import WorkflowHook, WorkflowRegistry
from .simulation import HookIndex

if TYPE_CHECKING:
    from ..events import EventLog
    from .runs import WorkflowRun

log = logging.getLogger("svc.workflows")

MAX_HOOK_CHAIN = 8
"""Hook runs triggering hook runs stop at this depth (a guard against event loops)."""

DEDUPE_WINDOW = 4096

StartHookRun = Callable[[WorkflowHook, Event], Awaitable["WorkflowRun"]]


class HookDispatcher:
    def __init__(self, events: EventLog, start: StartHookRun) -> None:
        self.events = events
        self.start = start
        self.index = HookIndex(())
        self._dispatched: OrderedDict[str, None] = OrderedDict()
        self._index_changed = trio.Event()
        self._stream_scope: trio.CancelScope | None = None

    def install(self, registry: WorkflowRegistry) -> None:
        """Index the active hooks of a newly installed registry."""
        self.index = HookIndex(registry.hooks, registry)
        if not self.index and self._stream_scope is not None:
            # No active hook left: the dispatcher drops its subscription.
            self._stream_scope.cancel()
        changed, self._index_changed = self._index_changed, trio.Event()
        changed.set()

    def _might_trigger(self, event: Event) -> bool:
        return bool(self.index.match(event.type))

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run the hooks every new event matches (a long-running child of the engine).

        The dispatcher reads the event log only while at least one hook is
        active: an engine without hooks holds no subscription at all.
        """
        task_status.started()
        while True:
            if not self.index:
                await self._index_changed.wait()
                continue
            with trio.CancelScope() as scope:
                self._stream_scope = scope
                with EventStream(self.events, EventFilter(predicate=self._might_trigger)) as stream:
                    while True:
                        try:
                            batch = await stream.receive()
                        except StreamEnded:
                            # The log is shutting down; wait for the cancellation that follows.
                            await trio.sleep_forever()
                        for event in batch:
                            await self.dispatch(event)
            self._stream_scope = None

    async def dispatch(self, event: Event) -> list[WorkflowRun]:
        """Start a run for each active hook ``event`` matches (once per hook and event)."""
        started = []
        chain = hook_chain(event.properties)
        for hook in self.index.match(event.type):
            if hook.binding_id in chain:
                continue  # a hook never fires on the events of its own run
            if len(chain) >= MAX_HOOK_CHAIN:
                log.warning("hook %s not run: hook chain %s is too deep", hook.binding_id, chain)
                continue
            key = f"{hook.binding_id}::{event.event_id}"
            if key in self._dispatched:
                continue
            self._dispatched[key] = None
            while len(self._dispatched) > DEDUPE_WINDOW:
                self._dispatched.popitem(last=False)
            try:
                started.append(await self.start(hook, event))
            except Exception:
                log.exception("hook %s could not start a run for %s", hook.binding_id, event.type)
        return started


def hook_chain(properties: Mapping[str, Any]) -> list[str]:
    """The hooks whose runs led to an event (``hookChain`` of its properties)."""
    chain = properties.get("hookChain")
    return [c for c in chain if isinstance(c, str)] if isinstance(chain, list) else []


__all__ = ["MAX_HOOK_CHAIN", "HookDispatcher", "hook_chain"]
