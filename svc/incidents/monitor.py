"""The long-lived incident-monitor child: runtime failures in, background upkeep.

It follows the event log for failures of our own runs (``run.failed``,
``workflow.run.failed``, ``routine.run.failed``) with a cursor committed after each
batch, so a restart resumes exactly where it stopped; and once a second it polls the
log sources that are due, recovers triage runs past their deadline and, hourly,
prunes by ``retention_days``. Each piece of upkeep failing is logged and retried at
the next tick: one bad log file must not stop the others.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import trio

from ..events import Event, EventFilter, EventStream, StreamEnded
from .config_validation import valid_repo
from .fingerprints import runtime_fingerprint
from .intake import prepare

if TYPE_CHECKING:
    from .service import IncidentService

log = logging.getLogger("svc.incidents")

CURSOR_KEY = "runtime_cursor"
FAILURE_EVENTS = frozenset({"run.failed", "workflow.run.failed", "routine.run.failed"})
TRIAGE_RUN_PREFIX = "automation-v2-incident-monitor-triage-"
TICK_SECONDS = 1.0
RETENTION_EVERY_MS = 3_600_000


class IncidentMonitor:
    def __init__(self, service: IncidentService) -> None:
        self.service = service
        self.cursor: int | None = None
        self._progress = trio.Event()
        self._last_retention_ms = 0

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        events = self.service.events
        stored = await self.service.config_repo.state(CURSOR_KEY)
        if stored is None:
            # First start on this database: failures from now on.
            self.cursor = events.committed_seq
            await self.service.config_repo.set_state(CURSOR_KEY, str(self.cursor))
        else:
            self.cursor = int(stored)
        async with trio.open_nursery() as nursery:
            with EventStream(
                events, EventFilter(types=FAILURE_EVENTS), after_seq=self.cursor
            ) as stream:
                nursery.start_soon(self._upkeep)
                task_status.started()
                while True:
                    try:
                        batch = await stream.receive()
                    except StreamEnded:
                        nursery.cancel_scope.cancel()  # the log shuts down with the engine
                        return
                    for event in batch:
                        try:
                            await self.observe(event)
                        except Exception:
                            # One unreadable event must not stop the intake of later ones.
                            log.exception("incident monitor could not take event %s", event.seq)
                    self.cursor = batch[-1].seq
                    await self.service.config_repo.set_state(CURSOR_KEY, str(self.cursor))
                    self._progress.set()
                    self._progress = trio.Event()

    async def wait_for(self, seq: int) -> None:
        """Wait until every event up to ``seq`` was taken (tests, orderly shutdown)."""
        while self.cursor is None or self.cursor < seq:
            await self._progress.wait()

    async def observe(self, event: Event) -> None:
        config = self.service.config
        if not config.enabled or config.paused:
            return
        props = event.properties
        run_id = str(props.get("runID") or event.run_id or "")
        if run_id.startswith(TRIAGE_RUN_PREFIX):
            return  # the monitor's own triage failing is recorded on its draft, not re-reported
        reason = str(props.get("reason") or props.get("error") or props.get("detail") or "failed")
        workflow_id = props.get("automationID") or props.get("routineID") or props.get("workflowID")
        failed_nodes = props.get("failedNodes") or []
        node_id = failed_nodes[0] if isinstance(failed_nodes, list) and failed_nodes else None
        repo = config.repo if valid_repo(config.repo) else None
        fingerprint = runtime_fingerprint(
            repo=repo,
            workspace_root=config.workspace_root,
            event_type=event.type,
            reason=reason,
            workflow_id=str(workflow_id) if workflow_id else None,
            node_id=str(node_id) if node_id else None,
        )
        report: dict[str, Any] = {
            "title": f"{event.type} in {workflow_id or 'a run'}",
            "detail": reason,
            "source": "svc_runtime",
            "event": event.type,
            "level": "error",
            "run_id": run_id or None,
            "component": str(workflow_id) if workflow_id else None,
            "fingerprint": fingerprint,
            "confidence": "high",
            "risk_level": "medium",
        }
        fields = prepare(config, report, trusted_binding={"source_kind": "svc_runtime"})
        await self.service.record_failure(
            fields,
            event_type=event.type,
            event_payload={"event_seq": event.seq, "run_id": run_id, "workflow_id": workflow_id},
            check_patterns=True,
        )

    async def _upkeep(self) -> None:
        while True:
            await trio.sleep(TICK_SECONDS)
            await self.tick()

    async def tick(self) -> None:
        """One round of upkeep (also called directly by tests)."""
        service = self.service
        for name, job in (
            ("log sources", service.poll_log_sources),
            ("triage recovery", service.recover_triage),
            ("policy decisions", service.decisions.flush),
            ("reassessment", service.security.reassess_due),
        ):
            try:
                await job()
            except Exception:
                log.exception("incident monitor %s failed", name)
        now = service.now_ms()
        if now - self._last_retention_ms >= RETENTION_EVERY_MS:
            self._last_retention_ms = now
            try:
                await service.prune_retention()
            except Exception:
                log.exception("incident monitor retention failed")
