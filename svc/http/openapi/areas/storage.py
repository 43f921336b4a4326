"""Files of the engine's storage."""

from ..records.system import STORAGE_FILES
from ..registry import op

OPERATIONS = {
    "storage_files": op(
        "List files under the storage root", returns=STORAGE_FILES, query=("path",)
    ),
}
