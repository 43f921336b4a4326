"""The global event stream and run event logs."""

from ..records.system import RUN_EVENTS, RUN_EVENTS_PAGE
from ..registry import op, q_bool, q_int

OPERATIONS = {
    "events": op(
        "The event stream, filtered by session and run",
        stream=(
            "server.connected",
            "engine.lifecycle.ready",
            "session.created",
            "session.updated",
            "session.status",
            "message.part.updated",
            "session.response",
            "todo.updated",
            "question.asked",
            "approval.required",
            "session.run.finished",
        ),
        query=("sessionID", "runID"),
    ),
    "run_events_replay": op(
        "A page of a run's stored events",
        returns=RUN_EVENTS_PAGE,
        query=(q_int("after_seq"), q_int("before_seq"), q_int("limit"), q_int("tail")),
    ),
    "run_events": op(
        "A run's events: a stream for `Accept: text/event-stream`, else a JSON array",
        stream=(
            "run.stream.connected",
            "message.part.updated",
            "session.response",
            "session.run.finished",
        ),
        stream_or_json=True,
        returns=RUN_EVENTS,
        query=(q_int("since_seq"), q_int("tail"), q_bool("json")),
    ),
}
