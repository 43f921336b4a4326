"""Helpers shared by the memory tests."""

from __future__ import annotations

from svc.memory import MemoryRecord, MemoryStore, NewRecord
from svc.memory.factory import build_record


async def put(
    store: MemoryStore, content: str, tier: str = "global", *, now_ms: int = 1_000, **fields: object
) -> MemoryRecord:
    record = build_record(NewRecord(content=content, tier=tier, **fields), now_ms=now_ms)  # type: ignore[arg-type]
    await store.records.insert([record])
    return record
