"""Files of the engine's storage."""

from ..records.system import STORAGE_FILES, STORAGE_REPAIR
from ..registry import op

OPERATIONS = {
    "storage_files": op(
        "List files under the storage root", returns=STORAGE_FILES, query=("path",)
    ),
    "storage_repair": op(
        "Check the store (integrity, orphaned rows); `force` removes the orphans",
        body={"type": "object", "properties": {"force": {"type": "boolean"}}},
        returns=STORAGE_REPAIR,
    ),
}
