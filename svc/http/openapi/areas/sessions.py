"""``/session`` (also under ``/api``): sessions, messages and runs."""

from ..records import (
    MESSAGE,
    MESSAGES,
    PROMPT_RESULT,
    RUN_STARTED,
    SESSION,
    SESSION_STATUS,
    SESSIONS,
)
from ..records import session_history as h
from ..registry import op, q_bool, q_int

R = "svc.http.routes.sessions"

OPERATIONS = {
    "create_session": op("Create a session", body=f"{R}:CreateBody", returns=SESSION),
    "list_sessions": op(
        "List sessions (without message history)",
        returns=SESSIONS,
        query=(q_int("page"), q_int("page_size"), "q", q_bool("archived"), "workspace", "source"),
    ),
    "session_status": op("Run status of every session", returns=SESSION_STATUS),
    "get_session": op("A session with its message history", returns=SESSION),
    "patch_session": op(
        "Rename, archive or re-model a session",
        body=f"{R}:PatchBody",
        returns=h.SESSION_SETTINGS,
    ),
    "delete_session": op(
        "Delete a session (deferred with `reason: active_run` while a run is active)",
        returns=h.SESSION_DELETED,
    ),
    "session_messages": op("A session's messages", returns=MESSAGES),
    "append_message": op(
        "Append a message without starting a run (allowed while a run is active)",
        body={"type": "object", "properties": {"parts": {"type": "array"}}},
        returns=MESSAGE,
    ),
    "session_todos": op("A session's task list", returns=h.TODOS),
    "prompt_async": op(
        "Start a run; 204, or 202 with the run and its event stream for `?return=run`",
        body=f"{R}:PromptBody",
        returns=RUN_STARTED,
        status=204,
        also=(202,),
        query=("return",),
    ),
    "prompt_sync": op(
        "Run a prompt and answer with the result", body=f"{R}:PromptBody", returns=PROMPT_RESULT
    ),
    "get_active_run": op("The session's active run, if any", returns=h.SESSION_ACTIVE_RUN),
    "cancel_session": op("Cancel the session's active run", returns=h.RUN_CANCELLED),
    "cancel_run": op("Cancel one run of the session", returns=h.RUN_CANCELLED),
}
