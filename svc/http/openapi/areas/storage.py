"""Files of the engine's storage."""

from ..registry import op

OPERATIONS = {
    "storage_files": op("List files under the storage root", query=("path",)),
}
