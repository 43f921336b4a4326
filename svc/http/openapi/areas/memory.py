"""Memory records: put, search, promote, demote, import, audit."""

from ..registry import OBJECT, op, q_int

M = "svc.memory.requests"

OPERATIONS = {
    "list_memory": op("List memory records", returns=OBJECT, query=(q_int("limit"),)),
    "get_memory": op("A memory record", returns=OBJECT),
    "delete": op("Delete a memory record", returns=OBJECT),
    "audit": op("The memory audit log", returns=OBJECT, query=(q_int("limit"), "run_id")),
    "put": op(
        "Store a memory record",
        body=(f"{M}:PutRequest", f"{M}:GovernedPutRequest"),
        returns=OBJECT,
    ),
    "search": op(
        "Search memory",
        body=(f"{M}:SearchRequest", f"{M}:GovernedSearchRequest"),
        returns=OBJECT,
    ),
    "promote": op(
        "Promote a record to a wider tier",
        body=(f"{M}:PromoteRequest", f"{M}:GovernedPromoteRequest"),
        returns=OBJECT,
    ),
    "demote": op("Demote a record", body=f"{M}:DemoteRequest", returns=OBJECT),
    "import_memory": op(
        "Import files from a path on the engine's host", body=f"{M}:ImportBody", returns=OBJECT
    ),
    "context_resolve": op(
        "Resolve a context URI (`svc://memory/<tier>[/<scope>][/<record>]`) to its node",
        body={"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
        returns=OBJECT,
    ),
    "context_tree": op(
        "The tree of context nodes under a URI",
        returns=OBJECT,
        query=("uri", q_int("max_depth")),
    ),
    "context_layers": op(
        "The abstract (L0), overview (L1) and full text (L2) of a node",
        body={"type": "object", "properties": {"node_id": {"type": "string"}}},
        returns=OBJECT,
    ),
    "context_distill": op(
        "Keep a conversation's durable statements as session facts",
        body={
            "type": "object",
            "properties": {
                "session_id": {"type": "string"},
                "conversation": {"type": "array", "items": {"type": "string"}},
            },
        },
        returns=OBJECT,
    ),
}
