"""Routines (``/routines`` and ``/automations``, one body)."""

from ..registry import ANY_BODY, OBJECT, op, q_int

EVENTS = ("run.started", "run.failed", "run.completed", "approval.required")
REASON = {"type": "object", "properties": {"reason": {"type": "string"}}}

OPERATIONS = {
    "list_routines": op("Routines", returns=OBJECT),
    "create_routine": op("Create a routine", body=ANY_BODY, returns=OBJECT),
    "patch_routine": op("Change a routine", body=ANY_BODY, returns=OBJECT),
    "delete_routine": op("Delete a routine", returns=OBJECT),
    "run_now": op(
        "Run a routine now (human callers only)",
        body={
            "type": "object",
            "properties": {"run_count": {"type": "integer"}, "reason": {"type": "string"}},
        },
        returns=OBJECT,
    ),
    "history": op("A routine's history", returns=OBJECT, query=(q_int("limit"),)),
    "routine_runs": op("A routine's runs", returns=OBJECT, query=(q_int("limit"),)),
    "list_runs": op("Routine runs", returns=OBJECT, query=(q_int("limit"),)),
    "get_run": op("A routine run", returns=OBJECT),
    "approve_run": op("Approve a pending run", body=REASON, returns=OBJECT),
    "deny_run": op("Deny a pending run", body=REASON, returns=OBJECT),
    "pause_run": op("Pause a run", body=REASON, returns=OBJECT),
    "resume_run": op("Resume a run", body=REASON, returns=OBJECT),
    "run_artifacts": op("A run's artifacts", returns=OBJECT),
    "add_run_artifact": op("Add an artifact to a run", body=ANY_BODY, returns=OBJECT),
    "routines_events": op("Routine events as a stream", stream=EVENTS),
    "automations_events": op("Automation events as a stream", stream=EVENTS),
}
