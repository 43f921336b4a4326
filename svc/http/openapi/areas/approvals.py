"""Permission requests and questions awaiting a human."""

from ..records.approvals import PERMISSION_REPLY, PERMISSIONS, QUESTIONS
from ..records.system import OK
from ..registry import ANY_BODY, op

OPERATIONS = {
    "permissions": op("Pending permission requests and the rules", returns=PERMISSIONS),
    "permission_reply": op(
        "Reply to a permission request", body=ANY_BODY, returns=PERMISSION_REPLY
    ),
    "questions": op("Pending questions", returns=QUESTIONS),
    "question_reply": op("Answer a question", body=ANY_BODY, returns=OK),
    "question_reject": op("Reject a question", body=ANY_BODY, returns=OK),
    "question_answer": op("Answer a session's question", body=ANY_BODY, returns=OK),
    "tool_approve": op("Approve a session's pending tool call", body=ANY_BODY, returns=OK),
    "tool_deny": op("Deny a session's pending tool call", body=ANY_BODY, returns=OK),
}
