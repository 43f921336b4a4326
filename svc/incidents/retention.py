"""``retention_days``: prune receipts (posts), incidents and log evidence files older
than the window. Drafts stay: they are the reviewed record, deleted only on request."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from .service import IncidentService

DAY_MS = 86_400_000


async def prune(service: IncidentService) -> dict[str, int]:
    days = service.config.safety_defaults.retention_days
    if not days or days <= 0:
        return {"posts": 0, "incidents": 0, "evidence_files": 0}
    cutoff = service.now_ms() - days * DAY_MS
    posts = await service.posts.prune(cutoff)
    incidents = await service.drafts.prune_incidents(cutoff)
    files = await trio.to_thread.run_sync(_prune_files, service.state_dir / "evidence", cutoff)
    return {"posts": posts, "incidents": incidents, "evidence_files": files}


def _prune_files(root: os.PathLike[str], cutoff_ms: int) -> int:
    removed = 0
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            try:
                if os.stat(path).st_mtime * 1000 < cutoff_ms:
                    os.unlink(path)
                    removed += 1
            except OSError:
                continue  # gone already, or unreadable: the next prune tries again
    return removed
