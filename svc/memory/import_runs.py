"""Imports run by the engine: the HTTP body's defaults, and the ``memory.import.*`` events.

The import itself is :class:`svc.memory.importer.Importer`; this module decides
what a request body means (a relative path is under the workspace; the tier
follows from the ids given) and announces the import's start, progress and end
on the ``memory`` topic.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ValidationFailed
from .import_plan import ImportProgress, ImportRequest, ImportSummary, MemoryImportFailed
from .requests import ImportBody
from .service import TOPIC

if TYPE_CHECKING:
    from .service import MemoryService

COMPLETED_FIELDS = (
    "discovered_files",
    "indexed_files",
    "skipped_files",
    "deleted_files",
    "chunks_created",
)


async def import_body(memory: MemoryService, body: ImportBody) -> ImportSummary:
    raw_path = body.source.path if body.source is not None and body.source.path else body.path
    if not raw_path:
        raise ValidationFailed("`source.path` is required", field="source.path")
    path = Path(raw_path).expanduser()
    if not path.is_absolute():
        path = memory.workspace() / path
    tier = body.tier or (
        "project" if body.project_id else "session" if body.session_id else "global"
    )
    return await import_path(
        memory,
        ImportRequest(
            path=path,
            format=body.format,
            tier=tier,
            project_id=body.project_id,
            session_id=body.session_id,
            sync_deletes=body.sync_deletes,
            source_binding_id=body.source_binding_id,
        ),
    )


async def import_path(
    memory: MemoryService,
    request: ImportRequest,
    *,
    progress: Callable[[ImportProgress], None] | None = None,
) -> ImportSummary:
    from ..roots import check_within_roots

    root = request.path if request.path.expanduser().is_absolute() else Path.cwd() / request.path
    check_within_roots(root, memory.roots(), field="path")
    events = memory.events
    described = {
        "path": str(request.path),
        "format": request.format,
        "tier": request.tier,
        "scope": {"project": request.project_id, "session": request.session_id},
    }
    events.publish("memory.import.started", described, topic=TOPIC)

    def report(step: ImportProgress) -> None:
        events.publish(
            "memory.import.progress",
            {**described, "done": step.done, "total": step.total},
            topic=TOPIC,
        )
        if progress is not None:
            progress(step)

    try:
        summary = await memory.importer.run(request, progress=report)
    except (ValidationFailed, MemoryImportFailed) as exc:
        events.publish(
            "memory.import.failed",
            {**described, "error": exc.message, "code": exc.code},
            topic=TOPIC,
        )
        raise
    wire = summary.to_wire()
    events.publish(
        "memory.import.completed",
        {
            **described,
            **{k: wire[k] for k in COMPLETED_FIELDS},
            "error_count": len(summary.errors),
        },
        topic=TOPIC,
    )
    return summary


__all__ = ["import_body", "import_path"]
