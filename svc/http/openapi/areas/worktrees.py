"""Git worktrees under the workspace."""

from ..records.system import WORKTREE_CLEANUP
from ..registry import op

OPERATIONS = {
    "worktree_cleanup": op(
        "Find (and unless `dry_run`, the default, remove) stale worktrees and orphan "
        "directories of a repository under the workspace",
        body="svc.http.routes.worktrees:CleanupBody",
        returns=WORKTREE_CLEANUP,
    ),
}
