"""Files of the engine's storage."""

from ..registry import OBJECT, op

OPERATIONS = {
    "storage_files": op("List files under the storage root", query=("path",)),
    "storage_repair": op(
        "Check the store (integrity, orphaned rows); `force` removes the orphans",
        body={"type": "object", "properties": {"force": {"type": "boolean"}}},
        returns=OBJECT,
    ),
}
