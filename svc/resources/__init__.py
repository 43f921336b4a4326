"""The key/value resource store: JSON values under string keys, revisioned writes,
merge patches, optional time-to-live, and ``resource.*`` events."""

from .repository import Outcome, Resource, ResourceRepository
from .service import (
    TOPIC,
    ResourceNotFound,
    ResourceRevisionConflict,
    ResourceService,
    check_key,
    merge_patch,
    optional_int,
)

__all__ = [
    "TOPIC",
    "Outcome",
    "Resource",
    "ResourceNotFound",
    "ResourceRepository",
    "ResourceRevisionConflict",
    "ResourceService",
    "check_key",
    "merge_patch",
    "optional_int",
]
