"""Per-object decisions about ingested source objects: one tenant-scoped table."""

from __future__ import annotations

from typing import Any

import attrs

from .tenant import TenantContext
from .tenant_table_repository import TenantTable


@attrs.frozen(kw_only=True)
class SourceObject:
    """What an operator decided about one file of a binding (absent: nothing)."""

    object_id: str
    binding_id: str
    path: str
    """Relative to the binding's root."""
    deleted: bool = False
    """Removed from memory and left out of the binding's imports until reindexed."""
    data_class: str | None = None
    """The object's own data class (re-scoped), instead of the binding's."""
    updated_by: str | None = None
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def key(self) -> str:
        return self.object_id

    @property
    def parent(self) -> str:
        return self.binding_id

    @property
    def state(self) -> str:
        return "deleted" if self.deleted else "rescoped" if self.data_class else "active"

    def to_wire(self, tenant: TenantContext) -> dict[str, Any]:
        return {
            "object_id": self.object_id,
            "tenant_context": tenant.to_wire(),
            "binding_id": self.binding_id,
            "path": self.path,
            "state": self.state,
            "data_class_override": self.data_class,
            "updated_by": self.updated_by,
            "updated_at_ms": self.updated_at_ms,
        }


class SourceObjectRepository(TenantTable[SourceObject]):
    table = "enterprise_source_objects"
    record = SourceObject


__all__ = ["SourceObject", "SourceObjectRepository"]
