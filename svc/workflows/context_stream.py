"""``GET /context/runs/events/stream``: the events of many runs in one workspace, multiplexed.

A *context run* is any run with events in the log: a workflow run, a session
run (which includes the node runs of automations v2) or an automation v2 run.
Each belongs to a workspace: the workflow run's ``workspace_root``, the
session's directory, the automation's ``workspace_root``. A client subscribes
to named runs (all of which must belong to the workspace) or, without names, to
every run of the workspace, including runs that start while it listens.

Frames: ``{"kind": "ready", "workspace", "subscribed_run_ids", "timestamp_ms"}``
first, then ``{"kind": "context_run_event", "run_id", "workspace", "seq",
"ts_ms", "payload": <event>}`` with the event's global ``seq`` as the SSE id,
so ``Last-Event-ID`` / ``cursor`` resume exactly. ``tail`` replays the last N
events of each named run first.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from ..errors import ValidationFailed
from ..events import KEEPALIVE, Event, EventFilter, EventStream, StreamEnded, json_frame
from .repository import WorkflowRepository

if TYPE_CHECKING:
    from ..engine import Engine

KEEPALIVE_SECONDS = 10.0
MAX_TAIL = 2000
CACHE_SIZE = 10_000
NEGATIVE_TTL_MS = 1_000
"""An id no run has yet is looked up again after this long (its record may land a moment later)."""


def normalize_workspace(raw: str | None) -> str:
    if raw is None or not raw.strip():
        raise ValidationFailed(
            "query parameter `workspace` (an absolute path) is required", field="workspace"
        )
    path = Path(raw.strip()).expanduser()
    if not path.is_absolute():
        raise ValidationFailed("`workspace` must be an absolute path", field="workspace")
    return str(path.resolve())


def parse_run_ids(raw: str | None) -> list[str]:
    return sorted({part.strip() for part in (raw or "").split(",") if part.strip()})


def within(directory: str | None, workspace: str) -> bool:
    if not directory:
        return False
    path = Path(directory).resolve()
    root = Path(workspace)
    return path == root or root in path.parents


class ContextRuns:
    """Which workspace a run belongs to (cached: a run never moves)."""

    def __init__(self, engine: Engine, repo: WorkflowRepository) -> None:
        self.engine = engine
        self.repo = repo
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._missing: OrderedDict[str, int] = OrderedDict()

    async def workspace_of(self, run_id: str) -> str | None:
        """The run's workspace directory; ``None`` when no run has this id."""
        if run_id in self._cache:
            self._cache.move_to_end(run_id)
            return self._cache[run_id]
        now = self.engine.clock.now_ms()
        missed_at = self._missing.get(run_id)
        if missed_at is not None and now - missed_at < NEGATIVE_TTL_MS:
            return None
        found = await self._lookup(run_id)
        if found is None:
            self._missing[run_id] = now
            while len(self._missing) > CACHE_SIZE:
                self._missing.popitem(last=False)
            return None
        self._missing.pop(run_id, None)
        self._cache[run_id] = found
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return found

    async def _lookup(self, run_id: str) -> str | None:
        workflow = await self.repo.run_workspaces([run_id])
        if run_id in workflow:
            return workflow[run_id] or str(self.engine.workspace)
        sessions = self.engine.sessions
        run = await sessions.repo.get_run(run_id)
        if run is not None:
            session = await sessions.repo.get(run.session_id)
            return session.directory if session is not None else None
        automations = self.engine.automations
        if automations is not None and hasattr(automations, "get_v2_run"):
            record = await automations.get_v2_run(run_id)
            if record is not None:
                root = (
                    record.snapshot.get("workspace_root")
                    if isinstance(record.snapshot, dict)
                    else None
                )
                return root or str(self.engine.workspace)
        return None

    async def check_subscription(self, workspace: str, run_ids: Sequence[str]) -> None:
        for run_id in run_ids:
            found = await self.workspace_of(run_id)
            if found is None:
                raise ValidationFailed(f"run `{run_id}` not found", field="run_ids", runID=run_id)
            if not within(found, workspace):
                raise ValidationFailed(
                    f"run `{run_id}` does not belong to workspace {workspace}",
                    field="run_ids",
                    runID=run_id,
                )

    async def frames(
        self,
        workspace: str,
        run_ids: Sequence[str],
        *,
        after_seq: int | None,
        tail: int | None,
    ) -> AsyncIterator[bytes]:
        """The SSE body (see the module docstring); the subscription ends when the client
        goes away."""
        log = self.engine.events
        subscribed = set(run_ids)

        def wanted(event: Event) -> bool:
            return event.run_id is not None and (not subscribed or event.run_id in subscribed)

        yield json_frame(
            {
                "kind": "ready",
                "workspace": workspace,
                "subscribed_run_ids": sorted(subscribed),
                "timestamp_ms": self.engine.clock.now_ms(),
            }
        )
        if after_seq is None and tail and subscribed:
            # Everything up to `start` comes from the per-run tails, the rest
            # from the stream: the boundary is exact, so nothing repeats or drops.
            start = log.committed_seq
            replayed: list[Event] = []
            for run_id in sorted(subscribed):
                replayed += await log.replay(
                    EventFilter(run_id=run_id), before_seq=start + 1, limit=tail, tail=True
                )
            replayed.sort(key=lambda e: e.seq)
            chunk = b"".join([await self._frame(e, workspace) or b"" for e in replayed])
            if chunk:
                yield chunk
            after_seq = start
        stream = EventStream(log, EventFilter(predicate=wanted), after_seq=after_seq)
        try:
            while True:
                with trio.move_on_after(KEEPALIVE_SECONDS) as idle:
                    batch = await stream.receive()
                if idle.cancelled_caught:
                    yield KEEPALIVE
                    continue
                frames = [await self._frame(event, workspace) for event in batch]
                chunk = b"".join(f for f in frames if f)
                if chunk:
                    yield chunk
        except StreamEnded:
            return
        finally:
            # Synchronous on purpose: this may run inside a cancelled task.
            stream.close()

    async def _frame(self, event: Event, workspace: str) -> bytes | None:
        assert event.run_id is not None
        if not within(await self.workspace_of(event.run_id), workspace):
            return None
        head = json.dumps(
            {
                "kind": "context_run_event",
                "run_id": event.run_id,
                "workspace": workspace,
                "seq": event.seq,
                "ts_ms": event.occurred_at_ms,
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )
        body = head[:-1].encode() + b',"payload":' + event.data + b"}"
        return b"id: %d\ndata: %s\n\n" % (event.seq, body)


__all__ = ["MAX_TAIL", "ContextRuns", "normalize_workspace", "parse_run_ids", "within"]
