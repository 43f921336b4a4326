"""Records of coder projects and coder runs (``/coder``)."""

from __future__ import annotations

from ..registry import Record
from .common import (
    BOOL,
    INT,
    NULL_INT,
    NULL_OBJ,
    NULL_STR,
    OBJ,
    STR,
    array_of,
    nullable,
    obj,
    of,
)

REPO_BINDING = Record(
    "CoderRepoBinding",
    obj(
        {"workspace_id": STR, "workspace_root": STR, "repo_slug": STR, "default_branch": NULL_STR},
        {"project_id": STR},
    ),
)
_OPTION = obj({"id": STR, "name": STR})
STATUS_MAPPING = Record(
    "CoderStatusMapping",
    obj(
        {
            "field_id": STR,
            "field_name": STR,
            "todo": _OPTION,
            "in_progress": _OPTION,
            "in_review": _OPTION,
            "blocked": _OPTION,
            "done": _OPTION,
        }
    ),
)
PROJECT_BINDING = Record(
    "CoderProjectBoardBinding",
    obj(
        {
            "owner": STR,
            "project_number": INT,
            "repo_slug": NULL_STR,
            "mcp_server": STR,
            "schema_snapshot": OBJ,
            "schema_fingerprint": STR,
            "status_mapping": of(STATUS_MAPPING),
        }
    ),
)
BINDING = Record(
    "CoderBinding",
    obj(
        {
            "project_id": STR,
            "repo_binding": of(REPO_BINDING),
            "repohost_project_binding": nullable(PROJECT_BINDING),
            "updated_at_ms": INT,
        }
    ),
)
BINDING_ENVELOPE = Record("CoderBindingEnvelope", obj({"binding": nullable(BINDING)}))
BINDING_SAVED = Record("CoderBindingSaved", obj({"ok": BOOL, "binding": of(BINDING)}))

STEP = Record(
    "CoderStep",
    obj(
        {
            "step_id": STR,
            "title": STR,
            "prompt": STR,
            "status": STR,
            "run_id": NULL_STR,
            "started_at_ms": NULL_INT,
            "finished_at_ms": NULL_INT,
        }
    ),
)
RUN = Record(
    "CoderRun",
    obj(
        {
            "coder_run_id": STR,
            "project_id": STR,
            "workflow": STR,
            "workflow_mode": STR,
            "origin": STR,
            "source_client": NULL_STR,
            "status": STR,
            "phase": STR,
            "active": BOOL,
            "objective": STR,
            "session_id": NULL_STR,
            "linked_context_run_id": NULL_STR,
            "run_id": NULL_STR,
            "project_item_id": NULL_STR,
            "repohost_project_ref": NULL_OBJ,
            "remote_sync_state": STR,
            "created_at_ms": INT,
            "updated_at_ms": INT,
            "repo_binding": nullable(REPO_BINDING),
            "repohost_ref": NULL_OBJ,
            "steps": array_of(STEP),
            "auto_continue": BOOL,
            "parent_coder_run_id": NULL_STR,
            "pr_url": NULL_STR,
            "model": NULL_OBJ,
            "status_reason": NULL_STR,
        }
    ),
)
ARTIFACT = Record(
    "CoderArtifact",
    obj(
        {
            "id": STR,
            "coder_run_id": STR,
            "ts_ms": INT,
            "path": STR,
            "artifact_type": STR,
            "step_id": NULL_STR,
            "source_event_id": NULL_STR,
            "payload": OBJ,
        }
    ),
)
_PAYLOAD = {"coder_run": of(RUN), "run": NULL_OBJ}
RUN_PAYLOAD = Record(
    "CoderRunPayload",
    obj({"ok": BOOL, **_PAYLOAD}, {"deduped": BOOL, "parent_coder_run_id": STR}),
)
RUN_DETAIL = Record("CoderRunDetail", obj({**_PAYLOAD, "artifacts": array_of(ARTIFACT)}))
RUNS = Record("CoderRuns", obj({"runs": array_of(RUN), "count": INT}))
ARTIFACTS = Record(
    "CoderArtifacts",
    obj({"coder_run_id": STR, "artifacts": array_of(ARTIFACT), "count": INT}),
)
CANDIDATE = Record(
    "CoderMemoryCandidate",
    obj(
        {
            "candidate_id": STR,
            "coder_run_id": STR,
            "kind": STR,
            "summary": STR,
            "payload": OBJ,
            "status": STR,
            "memory_id": NULL_STR,
            "artifact": nullable(ARTIFACT),
            "created_at_ms": INT,
            "promoted_at_ms": NULL_INT,
        }
    ),
)
CANDIDATES = Record(
    "CoderMemoryCandidates",
    obj({"coder_run_id": STR, "candidates": array_of(CANDIDATE), "count": INT}),
)
CANDIDATE_CREATED = Record(
    "CoderMemoryCandidateCreated",
    obj({"ok": BOOL, "candidate_id": STR, "candidate": of(CANDIDATE)}),
)
CANDIDATE_PROMOTED = Record(
    "CoderMemoryCandidatePromoted",
    obj(
        {"ok": BOOL, "promoted": BOOL, "memory_id": NULL_STR, "candidate": of(CANDIDATE)},
        {"deduped": BOOL, "to_tier": STR},
    ),
)
MEMORY_HITS = Record(
    "CoderMemoryHits",
    obj(
        {"coder_run_id": STR, "query": STR, "hits": array_of(OBJ), "count": INT},
        {"status": STR, "reason": STR},
    ),
)
REPORT = Record(
    "CoderReportStored",
    obj(
        {"ok": BOOL, "coder_run": of(RUN), "artifact": of(ARTIFACT)},
        {"generated_candidates": array_of(CANDIDATE)},
    ),
)
PR_DRAFT = Record(
    "CoderPullRequestDraft",
    obj({"ok": BOOL, "coder_run": of(RUN), "artifact": of(ARTIFACT), "draft": OBJ}),
)
PR_SUBMIT = Record(
    "CoderPullRequestSubmission",
    obj(
        {"ok": BOOL, "submitted": BOOL, "artifact": of(ARTIFACT), "coder_run": of(RUN)},
        {
            "dry_run": BOOL,
            "pull_request": obj({"number": {}, "url": {}}),
            "mcp_server": STR,
        },
    ),
)
INBOX_ITEM = Record(
    "CoderInboxItem",
    obj(
        {
            "project_item_id": STR,
            "title": STR,
            "status_name": STR,
            "status_option_id": NULL_STR,
            "issue": NULL_OBJ,
            "actionable": BOOL,
            "unsupported_reason": NULL_STR,
            "remote_sync_state": STR,
        },
        {
            "run_state": STR,
            "active_run_id": NULL_STR,
            "linked_run": obj({"coder_run": of(RUN), "active": BOOL}),
        },
    ),
)
INBOX = Record(
    "CoderInbox",
    obj(
        {
            "project_id": STR,
            "binding": of(PROJECT_BINDING),
            "schema_drift": BOOL,
            "live_schema_fingerprint": STR,
            "todo_mapping": _OPTION,
            "items": array_of(INBOX_ITEM),
        }
    ),
)

RECORDS = (
    REPO_BINDING,
    STATUS_MAPPING,
    PROJECT_BINDING,
    BINDING,
    BINDING_ENVELOPE,
    BINDING_SAVED,
    STEP,
    RUN,
    ARTIFACT,
    RUN_PAYLOAD,
    RUN_DETAIL,
    RUNS,
    ARTIFACTS,
    CANDIDATE,
    CANDIDATES,
    CANDIDATE_CREATED,
    CANDIDATE_PROMOTED,
    MEMORY_HITS,
    REPORT,
    PR_DRAFT,
    PR_SUBMIT,
    INBOX_ITEM,
    INBOX,
)
