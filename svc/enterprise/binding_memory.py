"""What a binding holds in memory: its importer key, forgetting it, re-scoped objects.

The memory importer remembers a binding's files under one key per folder and
tenant (:func:`import_key_of`), so two tenants binding the same folder each get
their own records. Objects an operator re-scoped (:mod:`.source_objects`) are
imported by :func:`import_rescoped`, one pass per data class, after the
binding's main pass.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from ..memory import ImportSummary
    from .records import SourceBinding
    from .service import EnterpriseService
    from .tenant import Caller, TenantContext


async def import_rescoped(
    svc: EnterpriseService,
    caller: Caller,
    binding: SourceBinding,
    root: Path,
    everything: frozenset[str],
    held: set[str],
    scoped: dict[str, str],
    summary: ImportSummary,
) -> ImportSummary:
    """Import the re-scoped objects, one pass per data class (the main pass left them out,
    so their records were dropped and are written again with their own class)."""
    from ..memory import ImportRequest

    by_class: dict[str, set[str]] = {}
    for path, data_class in scoped.items():
        if path not in held and path in everything:
            by_class.setdefault(data_class, set()).add(path)
    tenant = caller.tenant
    for data_class, paths in sorted(by_class.items()):
        extra = await svc.engine.memory.import_path(
            ImportRequest(
                path=root,
                format="directory",
                tier="project",
                project_id=binding.project_id,
                sync_deletes=False,
                source_binding_id=binding.binding_id,
                classification=data_class,
                org_id=tenant.org_id,
                workspace_id=tenant.workspace_id,
                skip=everything - paths,
            )
        )
        summary = attrs.evolve(
            summary,
            indexed_files=summary.indexed_files + extra.indexed_files,
            chunks_created=summary.chunks_created + extra.chunks_created,
        )
    return summary


def import_key_of(binding: SourceBinding, root: Path, tenant: TenantContext) -> str:
    """The memory importer's key for a binding's folder: one per tenant, so two tenants
    binding the same folder each get their own records."""
    from ..memory import import_key

    return import_key(
        root,
        "directory",
        "project",
        None,
        binding.project_id,
        org_id=tenant.org_id,
        workspace_id=tenant.workspace_id,
    )


async def forget_binding_memory(
    svc: EnterpriseService, caller: Caller, binding: SourceBinding, root: Path
) -> int:
    """Remove every record a binding's imports wrote (a reindex starts from nothing)."""
    imports = svc.engine.memory.store.imports
    known = await imports.known_files(import_key_of(binding, root, caller.tenant))
    return await imports.forget(sorted(known)) if known else 0


__all__ = ["forget_binding_memory", "import_key_of", "import_rescoped"]
