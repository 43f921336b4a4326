"""``/coder``: a coder project's bindings and repository-host intake; coder runs."""

from ..records import coder as c
from ..registry import ANY_BODY, Op, op


def _report(what: str) -> Op:
    return op(f"Store a coder run's {what}", body=ANY_BODY, returns=c.REPORT)


OPERATIONS = {
    "get_bindings": op("A coder project's bindings", returns=c.BINDING_ENVELOPE),
    "put_bindings": op(
        "Replace a coder project's bindings", body=ANY_BODY, returns=c.BINDING_SAVED
    ),
    "inbox": op("A coder project's repository-host inbox", returns=c.INBOX),
    "intake": op(
        "Take an item from the repository host into a coder project",
        body=ANY_BODY,
        returns=c.RUN_PAYLOAD,
    ),
    "create_run": op("Create a coder run", body=ANY_BODY, returns=c.RUN_PAYLOAD),
    "list_runs": op(
        "Coder runs, newest first", returns=c.RUNS, query=("limit", "workflow_mode", "repo_slug")
    ),
    "get_run": op("A coder run with its session run and artifacts", returns=c.RUN_DETAIL),
    "execute_next": op("Run a coder run's next step", body=ANY_BODY, returns=c.RUN_PAYLOAD),
    "execute_all": op("Run a coder run's remaining steps", body=ANY_BODY, returns=c.RUN_PAYLOAD),
    "follow_on_run": op(
        "Continue a coder run in another workflow mode", body=ANY_BODY, returns=c.RUN_PAYLOAD
    ),
    "approve_run": op(
        "Approve a coder run awaiting approval", body=ANY_BODY, returns=c.RUN_PAYLOAD
    ),
    "cancel_run": op("Cancel a coder run", body=ANY_BODY, returns=c.RUN_PAYLOAD),
    "list_artifacts": op("A coder run's artifacts", returns=c.ARTIFACTS),
    "memory_hits": op(
        "Memory relevant to a coder run", returns=c.MEMORY_HITS, query=("q", "limit")
    ),
    "triage_inspection_report": _report("triage inspection report"),
    "triage_reproduction_report": _report("triage reproduction report"),
    "triage_summary": _report("triage summary"),
    "pr_review_evidence": _report("pull request review evidence"),
    "pr_review_summary": _report("pull request review summary"),
    "issue_fix_validation_report": _report("issue fix validation report"),
    "issue_fix_summary": _report("issue fix summary"),
    "merge_readiness_report": _report("merge readiness report"),
    "merge_recommendation_summary": _report("merge recommendation summary"),
    "pr_draft": op("Draft a coder run's pull request", body=ANY_BODY, returns=c.PR_DRAFT),
    "pr_submit": op(
        "Open a coder run's pull request through an MCP server",
        body=ANY_BODY,
        returns=c.PR_SUBMIT,
    ),
    "list_memory_candidates": op("A coder run's memory candidates", returns=c.CANDIDATES),
    "create_memory_candidate": op(
        "Propose a memory candidate", body=ANY_BODY, returns=c.CANDIDATE_CREATED
    ),
    "promote_memory_candidate": op(
        "Promote a memory candidate into memory", body=ANY_BODY, returns=c.CANDIDATE_PROMOTED
    ),
}
