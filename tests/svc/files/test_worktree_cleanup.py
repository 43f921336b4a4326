"""``POST /worktree/cleanup`` against a real git repository (git runs as a subprocess)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
import pytest
import trio


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(workspace: Path) -> Path:
    root = workspace / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(
        root,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "init",
    )
    managed = root / ".svc" / "worktrees"
    git(root, "worktree", "add", "-q", "-b", "stale", str(managed / "stale"))
    git(root, "worktree", "add", "-q", "-b", "busy", str(managed / "busy"))
    git(root, "worktree", "add", "-q", "-b", "mine", str(workspace / "mine"))
    git(root, "worktree", "add", "-q", "-b", "gone", str(workspace / "gone"))
    subprocess.run(["rm", "-rf", str(workspace / "gone")], check=True)
    (managed / "leftover").mkdir()
    return root


async def test_dry_run_by_default_lists_without_touching(
    client: httpx.AsyncClient, repo: Path, workspace: Path
) -> None:
    await client.post("/session", json={"directory": str(repo / ".svc" / "worktrees" / "busy")})
    body = (await client.post("/worktree/cleanup", json={"repo_root": str(repo)})).json()
    assert body["dry_run"] is True and body["ok"] is True
    managed = repo / ".svc" / "worktrees"
    assert body["managed_root"] == str(managed.resolve())
    assert len(body["tracked_paths"]) == 4
    assert body["active_paths"] == [str((managed / "busy").resolve())]
    stale = {Path(s["path"]).name: s for s in body["stale_paths"]}
    assert set(stale) == {"stale", "gone"} and stale["gone"]["prunable"] is True
    assert stale["stale"]["branch"] == "stale"
    assert body["orphan_dirs"] == [str(managed / "leftover")]
    assert body["cleaned_worktrees"] == [] and (managed / "stale").is_dir()


async def test_cleanup_removes_stale_worktrees_and_orphans_only(
    client: httpx.AsyncClient, repo: Path, workspace: Path
) -> None:
    await client.post("/session", json={"directory": str(repo / ".svc" / "worktrees" / "busy")})
    body = (
        await client.post(
            "/worktree/cleanup",
            json={"repo_root": str(repo), "dry_run": False, "remove_orphan_dirs": True},
        )
    ).json()
    assert body["ok"] is True, body["failures"]
    assert {Path(c["path"]).name for c in body["cleaned_worktrees"]} == {"stale", "gone"}
    managed = repo / ".svc" / "worktrees"
    assert not (managed / "stale").exists() and not (managed / "leftover").exists()
    assert (managed / "busy").is_dir() and (workspace / "mine").is_dir()
    done = await trio.run_process(
        ["git", "-C", str(repo), "worktree", "list"], capture_stdout=True, check=True
    )
    listed = done.stdout.decode()
    branches = {line.rsplit(" ", 1)[-1] for line in listed.splitlines()}
    assert branches == {"[main]", "[mine]", "[busy]"}


async def test_a_directory_that_is_no_repository_is_a_400(
    client: httpx.AsyncClient, workspace: Path
) -> None:
    (workspace / "plain").mkdir()
    response = await client.post("/worktree/cleanup", json={"repo_root": str(workspace / "plain")})
    assert response.status_code == 400 and response.json()["field"] == "repo_root"
    only_id = await client.post("/worktree/cleanup", json={"repository_id": "r1"})
    assert only_id.status_code == 400 and only_id.json()["field"] == "repository_id"
