"""``POST /global/storage/repair``: check the store and, with ``force``, remove what is orphaned.

The reply has the shape clients read (``status``, ``legacy_counts``, ``imported_counts``
and the legacy-import counters, which are zero: this engine keeps sessions in its
database and has no legacy session files to merge) plus what was checked here:
``integrity`` (SQLite's page check), ``orphans`` (rows whose session is gone) and,
with ``force``, ``removed``.
"""

from __future__ import annotations

from typing import Any

from ..store import Store
from .repair_repository import StoreRepairRepository


async def repair_store(store: Store, *, force: bool) -> dict[str, Any]:
    repo = StoreRepairRepository(store)
    integrity = await repo.integrity()
    orphans = await repo.orphans()
    removed = await repo.remove_orphans() if force and any(orphans.values()) else {}
    found = any(orphans.values())
    if integrity["status"] == "failed":
        status = "integrity_failed"
    elif found and force:
        status = "repaired"
    elif found:
        status = "issues_found"
    else:
        status = "ok"
    return {
        "status": status,
        "ok": integrity["status"] != "failed",
        "force": force,
        "integrity": integrity,
        "orphans": orphans,
        "removed": removed,
        "marker_updated": False,
        "sessions_merged": 0,
        "messages_recovered": 0,
        "parts_recovered": 0,
        "legacy_counts": {},
        "imported_counts": await repo.counts(),
        "store": store.kind,
    }
