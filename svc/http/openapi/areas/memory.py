"""Memory records: put, search, promote, demote, import, audit."""

from ..records import memory as m
from ..registry import op, q_int

M = "svc.memory.requests"

OPERATIONS = {
    "list_memory": op("List memory records", returns=m.MEMORY_LIST, query=(q_int("limit"),)),
    "get_memory": op("A memory record", returns=m.MEMORY_RECORD),
    "delete": op("Delete a memory record", returns=m.MEMORY_CHANGED),
    "audit": op("The memory audit log", returns=m.MEMORY_AUDIT, query=(q_int("limit"), "run_id")),
    "put": op(
        "Store a memory record",
        body=(f"{M}:PutRequest", f"{M}:GovernedPutRequest"),
        returns=m.MEMORY_STORED,
    ),
    "search": op(
        "Search memory",
        body=(f"{M}:SearchRequest", f"{M}:GovernedSearchRequest"),
        returns=m.MEMORY_SEARCH,
    ),
    "promote": op(
        "Promote a record to a wider tier",
        body=(f"{M}:PromoteRequest", f"{M}:GovernedPromoteRequest"),
        returns=m.MEMORY_PROMOTED,
    ),
    "demote": op("Demote a record", body=f"{M}:DemoteRequest", returns=m.MEMORY_CHANGED),
    "import_memory": op(
        "Import files from a path on the engine's host",
        body=f"{M}:ImportBody",
        returns=m.MEMORY_IMPORT,
    ),
    "context_resolve": op(
        "Resolve a context URI (`svc://memory/<tier>[/<scope>][/<record>]`) to its node",
        body={"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
        returns=m.CONTEXT_NODE,
    ),
    "context_tree": op(
        "The tree of context nodes under a URI",
        returns=m.CONTEXT_TREE,
        query=("uri", q_int("max_depth")),
    ),
    "context_layers": op(
        "The abstract (L0), overview (L1) and full text (L2) of a node",
        body={"type": "object", "properties": {"node_id": {"type": "string"}}},
        returns=m.CONTEXT_LAYERS,
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
        returns=m.CONTEXT_DISTILLED,
    ),
}
