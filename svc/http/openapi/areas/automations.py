"""Routines (``/routines`` and ``/automations``, one body)."""

from ..records import routines as r
from ..registry import ANY_BODY, op, q_int

EVENTS = ("run.started", "run.failed", "run.completed", "approval.required")
REASON = {"type": "object", "properties": {"reason": {"type": "string"}}}

OPERATIONS = {
    "list_routines": op("Routines", returns=r.ROUTINES),
    "create_routine": op("Create a routine", body=ANY_BODY, returns=r.ROUTINE_ENVELOPE),
    "patch_routine": op("Change a routine", body=ANY_BODY, returns=r.ROUTINE_PATCHED),
    "delete_routine": op("Delete a routine", returns=r.ROUTINE_DELETED),
    "run_now": op(
        "Run a routine now (human callers only)",
        body={
            "type": "object",
            "properties": {"run_count": {"type": "integer"}, "reason": {"type": "string"}},
        },
        returns=r.RUN_NOW,
    ),
    "history": op("A routine's history", returns=r.ROUTINE_HISTORY, query=(q_int("limit"),)),
    "routine_runs": op("A routine's runs", returns=r.ROUTINE_RUNS, query=(q_int("limit"),)),
    "list_runs": op("Routine runs", returns=r.ROUTINE_RUNS, query=(q_int("limit"),)),
    "get_run": op("A routine run", returns=r.ROUTINE_RUN_DETAIL),
    "approve_run": op("Approve a pending run", body=REASON, returns=r.ROUTINE_RUN_CHANGED),
    "deny_run": op("Deny a pending run", body=REASON, returns=r.ROUTINE_RUN_CHANGED),
    "pause_run": op("Pause a run", body=REASON, returns=r.ROUTINE_RUN_CHANGED),
    "resume_run": op("Resume a run", body=REASON, returns=r.ROUTINE_RUN_CHANGED),
    "run_artifacts": op("A run's artifacts", returns=r.ROUTINE_RUN_ARTIFACTS),
    "add_run_artifact": op(
        "Add an artifact to a run", body=ANY_BODY, returns=r.ROUTINE_RUN_CHANGED
    ),
    "routines_events": op("Routine events as a stream", stream=EVENTS),
    "automations_events": op("Automation events as a stream", stream=EVENTS),
}
