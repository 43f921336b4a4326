"""``svc_runs_queued``: runs waiting for a slot of their pool, read at scrape time.

Routine runs, automation v2 runs and workflow runs each take a slot of their pool's
``trio.CapacityLimiter`` before they execute (``automation_max_concurrent_runs``,
``automation_v2_max_concurrent_runs``, ``workflow_max_concurrent_runs``); the tasks
waiting on those limiters are the queued runs. Session runs are never queued: past
``max_concurrent_runs`` they are refused (429), not held.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from ..engine import Engine


def run_limiters(engine: Engine) -> Iterator[trio.CapacityLimiter]:
    """The limiters of the engine's run pools (those of the components it runs)."""
    if engine.automations is not None:
        yield engine.automations.routine_pool.limiter
        yield engine.automations.v2_pool.limiter
    # Imported at scrape time: the workflows component is found among the engine's.
    from ..workflows.component import WorkflowsComponent

    for component in engine.components:
        if isinstance(component, WorkflowsComponent) and component.service is not None:
            yield component.service.runner.limiter


def runs_queued(engine: Engine) -> int:
    return sum(limiter.statistics().tasks_waiting for limiter in run_limiters(engine))


__all__ = ["run_limiters", "runs_queued"]
