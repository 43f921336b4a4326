"""An automations v2 service's memory and plumbing: the definitions and the runs not ended.

Definitions are kept in memory (loaded at start-up, written through to the
store); runs that have not ended are kept in memory too, so every change to a
run goes through :meth:`V2State.store_run`. The service is built in layers, one
module each: this state, definitions (:mod:`.definitions`), runs
(:mod:`.runs`), gates (:mod:`.gates`) and scheduling (:mod:`.scheduling`);
:class:`~.service.V2Service` is the last layer.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from ..governance import Governance
from ..pool import RunPool
from ..scheduler.signal import ScheduleSignal
from .repository import V2Repository

if TYPE_CHECKING:
    from ...engine import Engine
    from .claims import RunClaims
    from .executor import V2Execution
    from .records import AutomationV2, AutomationV2Run

# The spec parser, the records, the schedule math and the executor are imported on first
# use: start-up on a fresh store parses, builds and runs none (docs/architecture.md,
# "Start-up budget").

log = logging.getLogger("svc.automations")

TOPIC = "automations/v2"
BUSY_STATUSES = frozenset({"queued", "running", "awaiting_approval"})
CANCEL_WAIT_S = 30.0


class V2State:
    def __init__(
        self,
        engine: Engine,
        repo: V2Repository,
        governance: Governance,
        pool: RunPool,
        signal: ScheduleSignal,
    ) -> None:
        self.engine = engine
        self.repo = repo
        self.governance = governance
        self.pool = pool
        self.signal = signal
        self._automations: dict[str, AutomationV2] = {}
        self._live: dict[str, AutomationV2Run] = {}
        self._executions: dict[str, V2Execution] = {}
        self._done: dict[str, trio.Event] = {}
        self._busy: Counter[str] = Counter()
        self._journaled: set[str] = set()
        """Automations with a journaled fire not yet materialized (busy for the scheduler)."""
        self._recovered: list[AutomationV2Run] = []
        """Runs materialized from the journal at start-up, announced by :meth:`start_pending`."""
        self.claims: RunClaims | None = None
        """Replicas on one store (svc/cluster): queued runs are claimed, not submitted here."""

    def now_ms(self) -> int:
        return self.engine.clock.now_ms()

    def publish(self, type: str, record: AutomationV2Run, /, **properties: Any) -> None:
        self.engine.events.publish(
            type,
            {"runID": record.run_id, "automationID": record.automation_id, **properties},
            topic=TOPIC,
        )

    def directory_for(self, spec: Mapping[str, Any]) -> Path | None:
        root = spec.get("workspace_root")
        if isinstance(root, str) and Path(root).is_dir():
            return Path(root)
        return None

    async def store_run(self, run: AutomationV2Run) -> None:
        """Persist ``run`` and keep the in-memory view (and the scheduler's busy marks) in step."""
        before = self._live.get(run.run_id)
        was_busy = before is not None and before.status in BUSY_STATUSES
        is_busy = run.status in BUSY_STATUSES
        if run.terminal:
            self._live.pop(run.run_id, None)
        else:
            self._live[run.run_id] = run
        if was_busy != is_busy:
            self._busy[run.automation_id] += 1 if is_busy else -1
            if self._busy[run.automation_id] <= 0:
                del self._busy[run.automation_id]
                self.signal.changed("v2", run.automation_id)
        await self.repo.save_run(run)

    async def get(self, automation_id: str) -> AutomationV2 | None:
        return self._automations.get(automation_id)

    def require(self, automation_id: str) -> AutomationV2:
        from ..errors import AutomationV2NotFound

        automation = self._automations.get(automation_id)
        if automation is None:
            raise AutomationV2NotFound(
                f"automation `{automation_id}` not found", automationID=automation_id
            )
        return automation


__all__ = ["BUSY_STATUSES", "CANCEL_WAIT_S", "TOPIC", "V2State"]
