"""Supervision trees and budget scopes for svc-engine, on Trio.

* ``open_supervisor`` / ``run_supervisor``: a fixed, ordered set of children with a restart
  strategy (one-for-one, one-for-all, rest-for-one) and a restart intensity; nests.
* ``open_dynamic_supervisor`` / ``run_dynamic_supervisor``: many children of one kind added at
  run time (sessions, connectors, agents), including actors rehydrated on restart.
* ``actor_child_spec``: a ChildSpec running an actor, fresh from its factory at each restart.
* ``BudgetScope``: nested token/step/tool-call/duration/cost budgets that cancel the work they
  govern when exhausted.

This package depends on ``actors``, trio, attrs and the standard library only.
"""

from ._actor_child import actor_child_spec
from ._budget import BudgetScope
from ._budget_records import BudgetLimits, BudgetUsage, Exhaustion, LimitName
from ._dynamic import DynamicSupervisor, open_dynamic_supervisor, run_dynamic_supervisor
from ._errors import SupervisorEscalation
from ._spec import ChildInfo, ChildSpec, Restart, Strategy
from ._supervisor import Supervisor, open_supervisor, run_supervisor

__all__ = [
    "BudgetLimits",
    "BudgetScope",
    "BudgetUsage",
    "ChildInfo",
    "ChildSpec",
    "DynamicSupervisor",
    "Exhaustion",
    "LimitName",
    "Restart",
    "Strategy",
    "Supervisor",
    "SupervisorEscalation",
    "actor_child_spec",
    "open_dynamic_supervisor",
    "open_supervisor",
    "run_dynamic_supervisor",
    "run_supervisor",
]
