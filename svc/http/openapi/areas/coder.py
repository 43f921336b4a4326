"""``/coder/projects/{project_id}``: a coder project's bindings and repository-host intake."""

from ..registry import ANY_BODY, OBJECT, op

OPERATIONS = {
    "get_bindings": op("A coder project's bindings", returns=OBJECT),
    "put_bindings": op("Replace a coder project's bindings", body=ANY_BODY, returns=OBJECT),
    "inbox": op("A coder project's repository-host inbox", returns=OBJECT),
    "intake": op(
        "Take an item from the repository host into a coder project", body=ANY_BODY, returns=OBJECT
    ),
}
