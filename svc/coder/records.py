"""Coder project records: the bindings of a project and the coder runs of its items."""

from __future__ import annotations

from typing import Any

import attrs

TERMINAL = frozenset({"completed", "failed", "cancelled", "blocked"})


@attrs.frozen(kw_only=True)
class RepoBinding:
    workspace_id: str
    workspace_root: str
    repo_slug: str
    default_branch: str | None = None


@attrs.frozen(kw_only=True)
class StatusOption:
    id: str
    name: str


@attrs.frozen(kw_only=True)
class StatusMapping:
    field_id: str
    field_name: str
    todo: StatusOption
    in_progress: StatusOption
    in_review: StatusOption
    blocked: StatusOption
    done: StatusOption


@attrs.frozen(kw_only=True)
class ProjectBinding:
    owner: str
    project_number: int
    repo_slug: str | None = None
    mcp_server: str
    schema_snapshot: dict[str, Any]
    schema_fingerprint: str
    status_mapping: StatusMapping


@attrs.frozen(kw_only=True)
class CoderBinding:
    project_id: str
    repo_binding: RepoBinding
    repohost_project_binding: ProjectBinding | None = None
    updated_at_ms: int = 0


@attrs.frozen(kw_only=True)
class CoderStep:
    """One step of a coder run's workflow: a prompt run in the run's session."""

    step_id: str
    title: str
    prompt: str
    status: str = "pending"
    """``pending``, ``running``, ``completed``, ``failed`` or ``cancelled``."""
    run_id: str | None = None
    started_at_ms: int | None = None
    finished_at_ms: int | None = None


@attrs.frozen(kw_only=True)
class CoderRun:
    coder_run_id: str
    project_id: str
    workflow: str = "issue_triage"
    """The workflow mode: ``issue_triage``, ``pr_review``, ``issue_fix``,
    ``merge_recommendation``."""
    origin: str = "repohost_project_intake"
    source_client: str | None = None
    status: str = "queued"
    """``queued``, ``running``, ``awaiting_approval``, then ``completed``, ``failed``
    or ``cancelled``."""
    objective: str
    session_id: str | None = None
    run_id: str | None = None
    """The session run of the step in progress (or of the last step run)."""
    project_item_id: str | None = None
    repohost_project_ref: dict[str, Any] | None = None
    remote_sync_state: str = "in_sync"
    created_at_ms: int = 0
    updated_at_ms: int = 0
    repo_binding: RepoBinding | None = None
    repohost_ref: dict[str, Any] | None = None
    """The issue or pull request the run is about: ``{kind, number, url?}``."""
    steps: tuple[CoderStep, ...] = ()
    auto_continue: bool = False
    """Set by execute-all: each finished step starts the next one."""
    parent_coder_run_id: str | None = None
    pr_url: str | None = None
    model: dict[str, str] | None = None
    status_reason: str | None = None

    @property
    def active(self) -> bool:
        return self.status not in TERMINAL

    @property
    def phase(self) -> str:
        running = next((s for s in self.steps if s.status == "running"), None)
        if running is not None:
            return running.step_id
        pending = next((s for s in self.steps if s.status in ("pending", "failed")), None)
        if self.active and pending is not None:
            return pending.step_id
        return self.status


__all__ = [
    "TERMINAL",
    "CoderBinding",
    "CoderRun",
    "CoderStep",
    "ProjectBinding",
    "RepoBinding",
    "StatusMapping",
    "StatusOption",
]
