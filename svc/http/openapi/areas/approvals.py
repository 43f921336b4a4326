"""Permission requests and questions awaiting a human."""

from ..registry import ANY_BODY, ARRAY, OBJECT, op

OPERATIONS = {
    "permissions": op("Pending permission requests and the rules", returns=OBJECT),
    "permission_reply": op("Reply to a permission request", body=ANY_BODY),
    "questions": op("Pending questions", returns=ARRAY),
    "question_reply": op("Answer a question", body=ANY_BODY),
    "question_reject": op("Reject a question", body=ANY_BODY),
    "question_answer": op("Answer a session's question", body=ANY_BODY),
    "tool_approve": op("Approve a session's pending tool call", body=ANY_BODY),
    "tool_deny": op("Deny a session's pending tool call", body=ANY_BODY),
}
