"""Connectors (with their credential references) and source bindings: one table each."""

from __future__ import annotations

from .records import Connector, SourceBinding
from .tenant_table_repository import TenantTable


class ConnectorRepository(TenantTable[Connector]):
    table = "enterprise_connectors"
    record = Connector


class SourceBindingRepository(TenantTable[SourceBinding]):
    table = "enterprise_source_bindings"
    record = SourceBinding


__all__ = ["ConnectorRepository", "SourceBindingRepository"]
