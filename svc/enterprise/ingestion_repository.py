"""Ingestion quarantines and ingestion jobs of source bindings: one table each."""

from __future__ import annotations

from .records import IngestionJob, Quarantine
from .tenant_table_repository import TenantTable


class QuarantineRepository(TenantTable[Quarantine]):
    table = "enterprise_quarantines"
    record = Quarantine


class IngestionJobRepository(TenantTable[IngestionJob]):
    table = "enterprise_ingestion_jobs"
    record = IngestionJob


__all__ = ["IngestionJobRepository", "QuarantineRepository"]
