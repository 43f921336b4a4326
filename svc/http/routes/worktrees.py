"""``POST /worktree/cleanup``: stale git worktrees under the workspace (svc/files/worktrees.py).

Removing worktrees changes this host, so only a direct loopback caller may ask for it
(a dry run, the default, is open to any token holder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
from quart import Blueprint, request

from ...convert import aliases, path_like, structure
from ...errors import Forbidden, ValidationFailed
from ...roots import check_within_roots
from ..access import is_loopback_host, split_host
from ..request import engine, object_body

bp = Blueprint("worktrees", __name__)


@attrs.frozen
class CleanupBody:
    dry_run: bool = aliases("dryRun", default=True)
    remove_orphan_dirs: bool = aliases("removeOrphanDirs", default=True)
    repo_root: str | None = aliases("repoRoot", default=None, validator=path_like)
    repository_id: str | None = aliases("repositoryId", "repositoryID", default=None)


@bp.post("/worktree/cleanup")
async def worktree_cleanup() -> Any:
    from ...files.worktrees import cleanup_worktrees

    body = structure(CleanupBody, await object_body())
    eng = engine()
    settings = eng.settings
    if body.repo_root is None and body.repository_id is not None:
        raise ValidationFailed(
            "`repository_id` names no repository this engine knows: give `repo_root`",
            field="repository_id",
        )
    root = Path(body.repo_root).expanduser() if body.repo_root else settings.resolved_workspace
    if not root.is_absolute():
        root = settings.resolved_workspace / root
    root = check_within_roots(root, settings.workspace_roots, field="repo_root")
    if not root.is_dir():
        raise ValidationFailed(f"`repo_root` {root} is not a directory", field="repo_root")
    if not body.dry_run:
        host, _ = split_host(request.headers.get("Host", ""))
        if not (is_loopback_host(request.remote_addr or "") and is_loopback_host(host)):
            raise Forbidden(
                "removing worktrees changes this host: only a direct loopback request may",
                code="worktree_host_effect_forbidden",
            )
    sessions = await eng.sessions.list_sessions(limit=10_000)
    return await cleanup_worktrees(
        root,
        dry_run=body.dry_run,
        remove_orphan_dirs=body.remove_orphan_dirs,
        active=[s.directory for s in sessions],
    )
