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
}
