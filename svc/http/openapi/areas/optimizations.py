"""Optimization campaigns and experiments (stored; no built-in optimizer)."""

from ..records import extras as x
from ..registry import ANY_BODY, op

OPERATIONS = {
    "list_optimizations": op("List optimization campaigns", returns=x.OPTIMIZATIONS),
    "create_optimization": op(
        "Create an optimization campaign",
        body=ANY_BODY,
        body_required=True,
        status=201,
        returns=x.OPTIMIZATION_ENVELOPE,
    ),
    "get_optimization": op("Read an optimization campaign", returns=x.OPTIMIZATION_ENVELOPE),
    "optimization_action": op(
        "Act on a campaign (start, pause, resume, complete, cancel, archive, record_experiment)",
        body=ANY_BODY,
        body_required=True,
        returns=x.OPTIMIZATION_ACTION,
    ),
    "list_optimization_experiments": op("List a campaign's experiments", returns=x.EXPERIMENTS),
    "get_optimization_experiment": op("Read one experiment", returns=x.EXPERIMENT_ENVELOPE),
    "apply_optimization_winner": op(
        "Apply an experiment as the campaign's winner", body=ANY_BODY, returns=x.OPTIMIZATION_ACTION
    ),
}
