"""Orchestrations (drafts, versions, publish) and goals (runs, transitions, waits)."""

from ..registry import ANY_BODY, OBJECT, op, q_int

G = "svc.goals.requests"
SPEC = "svc.goals.orchestration:SpecBody"

OPERATIONS = {
    "create_orchestration": op("Create an orchestration draft", body=SPEC, status=201),
    "list_orchestrations": op("List orchestrations", returns=OBJECT, query=("status",)),
    "get_orchestration": op("An orchestration's draft", returns=OBJECT),
    "update_orchestration": op(
        "Replace an orchestration draft (optimistic concurrency)", body=SPEC, returns=OBJECT
    ),
    "validate_orchestration": op("Validate a draft", body=ANY_BODY, returns=OBJECT),
    "publish_orchestration": op(
        "Publish the draft as the next immutable version", body=ANY_BODY, status=201
    ),
    "archive_orchestration": op("Archive an orchestration", body=ANY_BODY, returns=OBJECT),
    "refresh_references": op("Refresh the draft's workflow references", body=ANY_BODY),
    "stale_references": op("The draft's stale workflow references", returns=OBJECT),
    "list_versions": op("Published versions", returns=OBJECT),
    "get_version": op("One published version", returns=OBJECT),
    "dry_run": op(
        "Would a transition be allowed? (changes nothing)",
        body="svc.goals.dryrun:DryRunBody",
        returns=OBJECT,
    ),
    "start_goal": op(
        "Start a goal (201; the same idempotency key again is 200 with `replayed: true`)",
        body=f"{G}:StartGoal",
        status=201,
        also=(200,),
        returns=OBJECT,
    ),
    "list_goals": op("List goals", returns=OBJECT, query=(q_int("limit"), "cursor", "status")),
    "get_goal": op("A goal", returns=OBJECT),
    "goal_transition": op(
        "Record a transition (202 while it awaits approval)",
        body=f"{G}:TransitionBody",
        also=(202,),
        returns=OBJECT,
    ),
    "goal_completion": op("Complete a goal", body=f"{G}:CompletionBody", returns=OBJECT),
    "pause_goal": op("Pause a goal", body=ANY_BODY, returns=OBJECT),
    "resume_goal": op("Resume a goal", body=ANY_BODY, returns=OBJECT),
    "cancel_goal": op("Cancel a goal", body=ANY_BODY, returns=OBJECT),
    "dispatch_action": op("Dispatch a projected action", body=ANY_BODY, returns=OBJECT),
    "goal_events": op(
        "Pages of a goal's durable events; the stream for `Accept: text/event-stream`",
        stream=("ready", "goal.*"),
        stream_or_json=True,
        returns=OBJECT,
        query=(q_int("cursor"), q_int("limit")),
    ),
    "goal_event_stream": op(
        "A goal's events as a stream, resumable with `Last-Event-ID`",
        stream=("ready", "goal.*"),
        query=(q_int("cursor"),),
    ),
    "goal_projection": op(
        "The goal's projection (timeline, actions)", returns=OBJECT, query=(q_int("limit"),)
    ),
    "goal_graph": op("The goal's run graph", returns=OBJECT),
    "goal_runs": op("The goal's runs", returns=OBJECT),
    "goal_artifacts": op("The goal's artifacts", returns=OBJECT),
    "goal_budgets": op("The goal's budgets and usage", returns=OBJECT),
    "goal_handoffs": op("The goal's handoffs", returns=OBJECT),
    "decide_handoff": op("Approve or reject a handoff", body=ANY_BODY, returns=OBJECT),
    "goal_waits": op("The goal's waits", returns=OBJECT),
    "goal_wait": op("One wait", returns=OBJECT),
    "resolve_wait": op("Resolve a wait", body=ANY_BODY, returns=OBJECT),
    "legacy_handoffs": op(
        "Envelopes imported from the legacy handoff directory, and those quarantined",
        returns=OBJECT,
    ),
}
