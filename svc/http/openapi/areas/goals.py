"""Orchestrations (drafts, versions, publish) and goals (runs, transitions, waits)."""

from ..records import goals as g
from ..registry import ANY_BODY, OBJECT, op, q_int

G = "svc.goals.requests"
SPEC = "svc.goals.orchestration:SpecBody"

OPERATIONS = {
    "create_orchestration": op(
        "Create an orchestration draft", body=SPEC, status=201, returns=g.ORCHESTRATION_VERSION
    ),
    "list_orchestrations": op("List orchestrations", returns=g.ORCHESTRATIONS, query=("status",)),
    "get_orchestration": op("An orchestration's draft", returns=g.ORCHESTRATION_AGGREGATE),
    "update_orchestration": op(
        "Replace an orchestration draft (optimistic concurrency)",
        body=SPEC,
        returns=g.ORCHESTRATION_VERSION,
    ),
    "validate_orchestration": op(
        "Validate a draft", body=ANY_BODY, returns=g.ORCHESTRATION_VALIDATION
    ),
    "publish_orchestration": op(
        "Publish the draft as the next immutable version",
        body=ANY_BODY,
        status=201,
        returns=g.ORCHESTRATION_VERSION,
    ),
    "archive_orchestration": op(
        "Archive an orchestration", body=ANY_BODY, returns=g.ORCHESTRATION_VERSION
    ),
    "refresh_references": op(
        "Refresh the draft's workflow references", body=ANY_BODY, returns=g.REFRESHED_REFERENCES
    ),
    "stale_references": op("The draft's stale workflow references", returns=g.STALE_REFERENCES),
    "list_versions": op("Published versions", returns=g.ORCHESTRATION_VERSIONS),
    "get_version": op("One published version", returns=g.ORCHESTRATION_VERSION),
    "dry_run": op(
        "Would a transition be allowed? (changes nothing)",
        body="svc.goals.dryrun:DryRunBody",
        returns=g.DRY_RUN,
    ),
    "start_goal": op(
        "Start a goal (201; the same idempotency key again is 200 with `replayed: true`)",
        body=f"{G}:StartGoal",
        status=201,
        also=(200,),
        returns=g.GOAL_STARTED,
    ),
    "list_goals": op("List goals", returns=g.GOALS, query=(q_int("limit"), "cursor", "status")),
    "get_goal": op("A goal", returns=g.GOAL_VIEW),
    "goal_transition": op(
        "Record a transition (202 while it awaits approval)",
        body=f"{G}:TransitionBody",
        also=(202,),
        returns=g.GOAL_OUTCOME,
    ),
    "goal_completion": op("Complete a goal", body=f"{G}:CompletionBody", returns=g.GOAL_OUTCOME),
    "pause_goal": op("Pause a goal", body=ANY_BODY, returns=g.GOAL_OUTCOME),
    "resume_goal": op("Resume a goal", body=ANY_BODY, returns=g.GOAL_OUTCOME),
    "cancel_goal": op("Cancel a goal", body=ANY_BODY, returns=g.GOAL_OUTCOME),
    "dispatch_action": op("Dispatch a projected action", body=ANY_BODY, returns=OBJECT),
    "goal_events": op(
        "Pages of a goal's durable events; the stream for `Accept: text/event-stream`",
        stream=("ready", "goal.*"),
        stream_or_json=True,
        returns=g.GOAL_EVENTS,
        query=(q_int("cursor"), q_int("limit")),
    ),
    "goal_event_stream": op(
        "A goal's events as a stream, resumable with `Last-Event-ID`",
        stream=("ready", "goal.*"),
        query=(q_int("cursor"),),
    ),
    "goal_projection": op(
        "The goal's projection (timeline, actions)",
        returns=g.GOAL_PROJECTION,
        query=(q_int("limit"),),
    ),
    "goal_graph": op("The goal's run graph", returns=g.GOAL_GRAPH),
    "goal_runs": op("The goal's runs", returns=g.GOAL_RUNS),
    "goal_artifacts": op("The goal's artifacts", returns=g.GOAL_ARTIFACTS),
    "goal_budgets": op("The goal's budgets and usage", returns=g.GOAL_BUDGETS),
    "goal_handoffs": op("The goal's handoffs", returns=g.GOAL_HANDOFFS),
    "decide_handoff": op("Approve or reject a handoff", body=ANY_BODY, returns=g.GOAL_HANDOFF),
    "goal_waits": op("The goal's waits", returns=g.GOAL_WAITS),
    "goal_wait": op("One wait", returns=g.GOAL_WAIT),
    "resolve_wait": op("Resolve a wait", body=ANY_BODY, returns=g.GOAL_WAIT),
    "legacy_handoffs": op(
        "Envelopes imported from the legacy handoff directory, and those quarantined",
        returns=g.LEGACY_HANDOFFS,
    ),
}
