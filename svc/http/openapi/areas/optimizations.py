"""Optimization campaigns and experiments (stored; no built-in optimizer)."""

from ..registry import ANY_BODY, op

OPERATIONS = {
    "list_optimizations": op("List optimization campaigns"),
    "create_optimization": op(
        "Create an optimization campaign", body=ANY_BODY, body_required=True, status=201
    ),
    "get_optimization": op("Read an optimization campaign"),
    "optimization_action": op(
        "Act on a campaign (start, pause, resume, complete, cancel, archive, record_experiment)",
        body=ANY_BODY,
        body_required=True,
    ),
    "list_optimization_experiments": op("List a campaign's experiments"),
    "get_optimization_experiment": op("Read one experiment"),
    "apply_optimization_winner": op("Apply an experiment as the campaign's winner", body=ANY_BODY),
}
