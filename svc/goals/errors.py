"""Errors of the orchestrations and goals domain, each with a stable code.

Codes follow the reference's names (``goal_not_found``, ``draft_concurrency_conflict``,
...). Every error renders in the engine's envelope ``{"error", "code", "retryable"}``
plus ``detail`` (the message, as the reference's clients read it) and any extra fields.
"""

from __future__ import annotations

from typing import Any

from ..errors import SvcError


class GoalsError(SvcError):
    """Base of the domain's errors: ``detail`` mirrors the message."""

    def __init__(self, message: str | None = None, **extra: Any) -> None:
        super().__init__(message, **extra)
        self.extra.setdefault("detail", self.message)


# ------------------------------------------------------------------ orchestrations
class OrchestrationNotFound(GoalsError):
    """orchestration not found"""

    code = "orchestration_not_found"
    status = 404


class InvalidOrchestrationRequest(GoalsError):
    """invalid orchestration request"""

    code = "invalid_orchestration_request"
    status = 400


class InvalidOrchestrationRevision(GoalsError):
    """invalid orchestration revision"""

    code = "invalid_orchestration_revision"
    status = 400


class DraftConcurrencyConflict(GoalsError):
    """orchestration draft was modified concurrently"""

    code = "draft_concurrency_conflict"
    status = 409


class PublishedVersionConflict(GoalsError):
    """a concurrent publish raced this one"""

    code = "published_version_conflict"
    status = 409


class OrchestrationArchived(GoalsError):
    """the orchestration is archived"""

    code = "orchestration_archived"
    status = 409


class OrchestrationInvalid(GoalsError):
    """publishing requires a valid graph and refreshed workflow references"""

    code = "orchestration_invalid"
    status = 422


class OrchestrationForbidden(GoalsError):
    """the principal does not own this orchestration"""

    code = "orchestration_forbidden"
    status = 403


# ------------------------------------------------------------------ goals
class GoalNotFound(GoalsError):
    """goal not found"""

    code = "goal_not_found"
    status = 404


class InvalidGoalRequest(GoalsError):
    """invalid goal request"""

    code = "invalid_goal_request"
    status = 400


class GoalTerminal(GoalsError):
    """terminal goals cannot emit transitions"""

    code = "goal_terminal"
    status = 409


class GoalStateConflict(GoalsError):
    """the goal's state does not allow this request"""

    code = "goal_state_conflict"
    status = 409


class GoalForbidden(GoalsError):
    """the principal is not authorized for this goal"""

    code = "goal_forbidden"
    status = 403


class ArtifactPolicyViolation(GoalsError):
    """the artifact violates the content policy"""

    code = "artifact_policy_violation"
    status = 422


class HandoffNotFound(GoalsError):
    """handoff not found"""

    code = "handoff_not_found"
    status = 404


class WaitNotFound(GoalsError):
    """wait not found"""

    code = "wait_not_found"
    status = 404


class WaitResolutionConflict(GoalsError):
    """the wait is not resolvable"""

    code = "wait_resolution_conflict"
    status = 409


# ------------------------------------------------------------------ projection and actions
class ProjectionCursorNotRetained(GoalsError):
    """the projection cursor is older than the retained goal events"""

    code = "projection_cursor_not_retained"
    status = 410


class HistoricalProjectionUnavailable(GoalsError):
    """no projection snapshot is retained for that cursor"""

    code = "historical_projection_snapshot_unavailable"
    status = 409


class GoalActionUnauthenticated(GoalsError):
    """goal actions require an authenticated principal"""

    code = "goal_action_unauthenticated"
    status = 401


class InvalidGoalAction(GoalsError):
    """invalid goal action request"""

    code = "invalid_goal_action"
    status = 400


class GoalActionReasonRequired(GoalsError):
    """this action requires a reason"""

    code = "goal_action_reason_required"
    status = 400


class StaleGoalAction(GoalsError):
    """the goal changed since the projection the action came from"""

    code = "stale_goal_action"
    status = 409


class GoalActionNotAvailable(GoalsError):
    """the action is not available for this goal"""

    code = "goal_action_not_available"
    status = 409


class GoalActionIdempotencyConflict(GoalsError):
    """the idempotency key is bound to a different action request"""

    code = "goal_action_idempotency_conflict"
    status = 409


__all__ = [
    "ArtifactPolicyViolation",
    "DraftConcurrencyConflict",
    "GoalActionIdempotencyConflict",
    "GoalActionNotAvailable",
    "GoalActionReasonRequired",
    "GoalActionUnauthenticated",
    "GoalForbidden",
    "GoalNotFound",
    "GoalStateConflict",
    "GoalTerminal",
    "GoalsError",
    "HandoffNotFound",
    "HistoricalProjectionUnavailable",
    "InvalidGoalAction",
    "InvalidGoalRequest",
    "InvalidOrchestrationRequest",
    "InvalidOrchestrationRevision",
    "OrchestrationArchived",
    "OrchestrationForbidden",
    "OrchestrationInvalid",
    "OrchestrationNotFound",
    "ProjectionCursorNotRetained",
    "PublishedVersionConflict",
    "StaleGoalAction",
    "WaitNotFound",
    "WaitResolutionConflict",
]
