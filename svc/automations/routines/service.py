"""Routines (automations v1): definitions, runs, approvals, and their scheduling hooks.

Definitions and their fire times live in memory (loaded at start-up, written
through to the store); so do the runs that have not settled, so every change
of a run passes through here one at a time. A routine's runs execute one after
another (a per-routine lane: a queue drained by one job, see :mod:`.runs`), at
most ``automation_max_concurrent_runs`` across routines, in the routine
:class:`~svc.automations.pool.RunPool`.

Run statuses: ``queued``, ``pending_approval``, ``running``, ``paused``, and the
terminal ``blocked_policy``, ``denied``, ``completed``, ``failed``,
``cancelled``. Lifecycle events go to topic ``automations`` (the
``/automations/events`` stream) with ``runID``, ``routineID`` and
``automationID``: ``run.started`` (the run was created), ``approval.required``,
``run.step`` (``step``: started, approved, paused, resumed, artifact_added),
``routine.run.model_selected``, ``run.completed`` and ``run.failed`` (failed,
blocked by policy, denied, cancelled); ``routine.created``, ``routine.updated``
and ``routine.deleted`` too.
"""

from __future__ import annotations

from .scheduling import RoutineScheduling
from .state import TOPIC


class RoutineService(RoutineScheduling):
    """The routine service: every layer (see :mod:`.state`), as ``engine.automations.routines``."""


__all__ = ["TOPIC", "RoutineService"]
