"""``POST /worktree/cleanup``: stale git worktrees of a repository under the workspace.

Git is run as a subprocess (``git worktree list --porcelain``, ``remove``, ``prune``):
the repository's own view is the truth. Three kinds of leftovers are found:

* *prunable* worktrees: registered, but their directory is gone (``git worktree prune``);
* *stale* worktrees: registered, in the managed directory (``<repo>/.svc/worktrees``,
  where tools create their worktrees), and no session works in them
  (``git worktree remove --force``);
* *orphan directories*: in the managed directory but not registered with git.

Worktrees elsewhere are listed (``tracked_paths``) and never touched. Nothing is changed
unless ``dry_run`` is false (the default is a dry run).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import trio

from ..errors import ValidationFailed

MANAGED_DIR = Path(".svc") / "worktrees"
GIT_TIMEOUT_S = 60.0


@attrs.frozen
class Worktree:
    path: str
    branch: str | None
    prunable: bool
    main: bool


async def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    with trio.fail_after(GIT_TIMEOUT_S):
        return await trio.run_process(
            ["git", "-C", str(repo), *args], capture_stdout=True, capture_stderr=True, check=False
        )


def parse_porcelain(text: str) -> list[Worktree]:
    found: list[Worktree] = []
    for index, block in enumerate(b for b in text.split("\n\n") if b.strip()):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            key, _, value = line.partition(" ")
            fields[key] = value
        branch = fields.get("branch")
        found.append(
            Worktree(
                path=fields.get("worktree", ""),
                branch=branch.removeprefix("refs/heads/") if branch else None,
                prunable="prunable" in fields,
                main=index == 0,
            )
        )
    return found


async def repository_root(path: Path) -> Path:
    done = await _git(path, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise ValidationFailed(f"`repo_root` {path} is not a git repository", field="repo_root")
    return Path(done.stdout.decode().strip()).resolve()


async def cleanup_worktrees(
    repo_root: Path,
    *,
    dry_run: bool,
    remove_orphan_dirs: bool,
    active: Iterable[str],
) -> dict[str, Any]:
    """Find (and unless ``dry_run``, remove) the leftovers; ``active`` are session directories."""
    root = await repository_root(repo_root)
    managed = root / MANAGED_DIR
    listed = await _git(root, "worktree", "list", "--porcelain")
    if listed.returncode != 0:
        raise ValidationFailed(
            f"git worktree list failed: {listed.stderr.decode().strip()}", field="repo_root"
        )
    trees = [t for t in parse_porcelain(listed.stdout.decode()) if not t.main]
    in_use = {str(Path(p).resolve()) for p in active}
    tracked = [t.path for t in trees]
    active_paths = [t.path for t in trees if str(Path(t.path).resolve()) in in_use]
    stale = [
        t
        for t in trees
        if t.prunable
        or (_under(Path(t.path), managed) and str(Path(t.path).resolve()) not in in_use)
    ]
    registered = {str(Path(t.path).resolve()) for t in trees}
    orphans = (
        [
            str(p)
            for p in sorted(managed.iterdir())
            if p.is_dir() and str(p.resolve()) not in registered
        ]
        if managed.is_dir()
        else []
    )
    cleaned: list[dict[str, Any]] = []
    removed_dirs: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    if not dry_run:
        for tree in stale:
            if tree.prunable:
                done = await _git(root, "worktree", "prune")
                via = "git worktree prune"
            else:
                done = await _git(root, "worktree", "remove", "--force", tree.path)
                via = "git worktree remove --force"
            record = {"path": tree.path, "branch": tree.branch, "via": via}
            if done.returncode == 0:
                cleaned.append({**record, "branch_deleted": False})
            else:
                failures.append(
                    {**record, "code": "WORKTREE_REMOVE_FAILED", "stderr": done.stderr.decode()}
                )
        if remove_orphan_dirs:
            for orphan in orphans:
                try:
                    await trio.to_thread.run_sync(shutil.rmtree, orphan)
                    removed_dirs.append({"path": orphan, "via": "rmtree"})
                except OSError as exc:
                    failures.append(
                        {"path": orphan, "code": "ORPHAN_DIR_REMOVE_FAILED", "error": str(exc)}
                    )
    return {
        "ok": not failures,
        "dry_run": dry_run,
        "repo_root": str(root),
        "managed_root": str(managed),
        "tracked_paths": tracked,
        "active_paths": active_paths,
        "stale_paths": [
            {"path": t.path, "branch": t.branch, "prunable": t.prunable} for t in stale
        ],
        "cleaned_worktrees": cleaned,
        "orphan_dirs": orphans,
        "orphan_dirs_removed": removed_dirs,
        "failures": failures,
    }


def _under(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
    except ValueError:
        return False
    return True
