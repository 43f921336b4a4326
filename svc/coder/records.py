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
class CoderRun:
    coder_run_id: str
    project_id: str
    workflow: str = "issue_triage"
    origin: str = "repohost_project_intake"
    source_client: str | None = None
    status: str = "queued"
    """``queued``, ``running``, then ``completed``, ``failed`` or ``cancelled``."""
    objective: str
    session_id: str | None = None
    run_id: str | None = None
    project_item_id: str | None = None
    repohost_project_ref: dict[str, Any] | None = None
    remote_sync_state: str = "in_sync"
    created_at_ms: int = 0
    updated_at_ms: int = 0

    @property
    def active(self) -> bool:
        return self.status not in TERMINAL


__all__ = [
    "TERMINAL",
    "CoderBinding",
    "CoderRun",
    "ProjectBinding",
    "RepoBinding",
    "StatusMapping",
    "StatusOption",
]
