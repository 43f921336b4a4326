"""Metrics read from the event log: run durations, tool-call decisions, provider errors.

The run loop, the dispatcher and the settlement already announce these as events, so
the recorder subscribes rather than adding a call to each of them. It keeps per-run
state only for runs still active (started, not yet finished).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ..events import MATCH_ALL, EventLog

if TYPE_CHECKING:
    from .families import Metrics

TERMINAL_TOOL_STATES = frozenset({"completed", "failed", "denied"})
PROVIDER_FAILURES = frozenset({"provider", "authentication"})


async def record_events(
    metrics: Metrics,
    events: EventLog,
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Follow the live log until it ends (cancellation ends it too; nothing to undo)."""
    state = RunState()
    task_status.started()
    while True:
        with events.subscribe(MATCH_ALL, buffer=4096) as sub:
            async for batch in sub:
                for event in batch:
                    state.observe(metrics, event.type, event.run_id, event.properties)
                metrics.recorded(batch[-1].seq)
        if not sub.dropped:
            return  # the log ended its streams (shutdown)
        # Cut off for falling behind (a burst): follow again; the missed events are
        # lost to the metrics only, and runs they started are forgotten when they end.


class RunState:
    def __init__(self) -> None:
        self.started_ms: dict[str, int] = {}
        self.provider: dict[str, str] = {}

    def observe(self, metrics: Metrics, kind: str, run_id: str | None, props: Any) -> None:
        if kind == "session.run.started" and run_id:
            self.started_ms[run_id] = int(props.get("startedAtMs") or 0)
        elif kind == "provider.usage" and run_id and props.get("providerID"):
            self.provider[run_id] = str(props["providerID"])
        elif kind == "message.part.updated":
            part = props.get("part") or {}
            if part.get("type") == "tool" and part.get("state") in TERMINAL_TOOL_STATES:
                metrics.tool_calls.labels(
                    tool=str(part.get("tool")), decision=str(part["state"])
                ).inc()
        elif kind == "session.run.finished" and run_id:
            started = self.started_ms.pop(run_id, None)
            provider = str(props.get("providerID") or self.provider.pop(run_id, "unknown"))
            self.provider.pop(run_id, None)
            status = str(props.get("status") or "unknown")
            finished = props.get("finishedAtMs")
            if started and isinstance(finished, int):
                metrics.run_duration.labels(status=status).observe(
                    max(0.0, (finished - started) / 1000)
                )
            error = props.get("error") or {}
            if props.get("failureCategory") in PROVIDER_FAILURES and error.get("code"):
                metrics.provider_errors.labels(provider=provider, code=str(error["code"])).inc()


__all__ = ["RunState", "record_events"]
