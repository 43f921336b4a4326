"""The workflow modes of coder runs and the steps each one runs in the run's session.

A step is one prompt; the session keeps the transcript, so each step sees what
the earlier ones found. Issue workflows are about an issue, review workflows
about a pull request. ``issue_fix`` and ``merge_recommendation`` end waiting for
a human's approval (the fix is submitted, the merge done, by people); the
others complete when their last step does.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationFailed
from .records import CoderStep

ISSUE = "issue"
PULL_REQUEST = "pull_request"

STEPS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "issue_triage": (
        (
            "inspect",
            "Inspect the issue",
            "Read the issue and the code it concerns; say what it is about and which files matter.",
        ),
        (
            "reproduce",
            "Reproduce",
            "Describe how to reproduce the problem, and whether it reproduces in this workspace.",
        ),
        (
            "summarize",
            "Summarize",
            "Summarize the triage: cause, affected area, severity, and the next step.",
        ),
    ),
    "pr_review": (
        (
            "evidence",
            "Gather evidence",
            "Read the pull request's changes and list what they do and what could break.",
        ),
        ("review", "Review", "Write the review: findings by severity and a verdict."),
    ),
    "issue_fix": (
        ("plan", "Plan the fix", "Plan the smallest change that fixes the issue."),
        ("implement", "Implement", "Make the change in the workspace."),
        (
            "validate",
            "Validate",
            "Run the checks that show the fix works and breaks nothing; report their results.",
        ),
    ),
    "merge_recommendation": (
        (
            "readiness",
            "Assess merge readiness",
            "Check the pull request's reviews, checks and conflicts.",
        ),
        ("recommend", "Recommend", "Recommend merge, wait or reject, with the reasons."),
    ),
}
REF_KIND = {
    "issue_triage": ISSUE,
    "issue_fix": ISSUE,
    "pr_review": PULL_REQUEST,
    "merge_recommendation": PULL_REQUEST,
}
NEEDS_APPROVAL = frozenset({"issue_fix", "merge_recommendation"})

# Which report and summary routes belong to which workflow (``artifact type``: mode).
ARTIFACT_MODES = {
    "triage_inspection_report": "issue_triage",
    "triage_reproduction_report": "issue_triage",
    "triage_summary": "issue_triage",
    "pr_review_evidence": "pr_review",
    "pr_review_summary": "pr_review",
    "issue_fix_validation_report": "issue_fix",
    "issue_fix_summary": "issue_fix",
    "merge_readiness_report": "merge_recommendation",
    "merge_recommendation_summary": "merge_recommendation",
    "pr_draft": "issue_fix",
    "pr_submission": "issue_fix",
}
SUMMARIES = frozenset(
    {"triage_summary", "pr_review_summary", "issue_fix_summary", "merge_recommendation_summary"}
)


def workflow_mode(value: Any, field: str = "workflow_mode") -> str:
    if value is None:
        return "issue_triage"
    if not isinstance(value, str) or value not in STEPS:
        raise ValidationFailed(f"`{field}` must be one of {', '.join(sorted(STEPS))}", field=field)
    return value


def steps_for(mode: str, subject: str) -> tuple[CoderStep, ...]:
    """The mode's steps; the first prompt carries the subject (the issue or pull request)."""
    steps = []
    for index, (step_id, title, prompt) in enumerate(STEPS[mode]):
        text = f"{subject}\n\n{prompt}" if index == 0 else prompt
        steps.append(CoderStep(step_id=step_id, title=title, prompt=text))
    return tuple(steps)


__all__ = [
    "ARTIFACT_MODES",
    "ISSUE",
    "NEEDS_APPROVAL",
    "PULL_REQUEST",
    "REF_KIND",
    "STEPS",
    "SUMMARIES",
    "steps_for",
    "workflow_mode",
]
