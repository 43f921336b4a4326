"""``/session/{id}/...`` (also under ``/api``): fork, children, diff, revert, summarize, attach."""

from ..records import session_history as h
from ..records.sessions import SESSION
from ..registry import op

R = "svc.http.routes.session_history"

OPERATIONS = {
    "fork_session": op(
        "Copy the transcript up to `messageID` (all when absent) into a new child session",
        body=f"{R}:ForkBody",
        returns=SESSION,
    ),
    "session_children": op(
        "Sessions forked from (or attached under) this one", returns=h.SESSION_LIST
    ),
    "session_diff": op(
        "File changes of the session's `write`/`edit` calls: `diff`, `files`, `changes`",
        returns=h.SESSION_DIFF,
    ),
    "revert_session": op(
        "Hide the messages from `messageID` (default: the last prompt) on; files stay as they are",
        body=f"{R}:RevertBody",
        returns=h.SESSION_REVERTED,
    ),
    "unrevert_session": op(
        "Bring back the messages the revert in effect hid", returns=h.SESSION_REVERTED
    ),
    "summarize_session": op(
        "Run the session's model (no tools) to summarize the conversation",
        body=f"{R}:SummarizeBody",
        returns=h.SESSION_SUMMARY,
    ),
    "attach_session": op(
        "Move the session to another workspace directory and/or under a parent session",
        body=f"{R}:AttachBody",
        returns=h.SESSION_ATTACHED,
    ),
}
