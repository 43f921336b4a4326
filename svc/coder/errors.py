"""Coder errors with stable codes (``REPOHOST`` where the reference names the code host)."""

from __future__ import annotations

from ..errors import SvcError


class CoderError(SvcError):
    code = "CODER_ERROR"
    status = 400


class BindingNotFound(CoderError):
    """The coder project has no binding."""

    code = "CODER_PROJECT_BINDING_NOT_FOUND"
    status = 404


class RepoBindingRequired(CoderError):
    """A repo binding with workspace_id, workspace_root and repo_slug is required."""

    code = "CODER_REPO_BINDING_REQUIRED"
    status = 400


class ProjectBindingRequired(CoderError):
    """Repohost project binding is required before intake"""

    code = "CODER_REPOHOST_PROJECT_BINDING_REQUIRED"
    status = 409


class McpUnavailable(CoderError):
    """No connected MCP server exposes the repohost project tools."""

    code = "CODER_REPOHOST_PROJECT_MCP_UNAVAILABLE"
    status = 409


class SchemaInvalid(CoderError):
    """The repohost project schema could not be read."""

    code = "CODER_REPOHOST_PROJECT_SCHEMA_INVALID"
    status = 502


class BoardFailed(CoderError):
    """A repohost project tool failed."""

    code = "CODER_REPOHOST_PROJECT_TOOL_FAILED"
    status = 502


class ItemNotFound(CoderError):
    """The project item is not in the bound project."""

    code = "CODER_REPOHOST_PROJECT_ITEM_NOT_FOUND"
    status = 404


class ItemNotIssue(CoderError):
    """The project item is not an issue."""

    code = "CODER_REPOHOST_PROJECT_ITEM_NOT_ISSUE"
    status = 409


class ItemNotTodo(CoderError):
    """Project item is not in the configured TODO state"""

    code = "CODER_REPOHOST_PROJECT_ITEM_NOT_TODO"
    status = 409


class RunNotFound(CoderError):
    """The coder run does not exist."""

    code = "CODER_RUN_NOT_FOUND"
    status = 404


class RunConflict(CoderError):
    """The coder run is not in a state that allows this."""

    code = "CODER_RUN_STATE_CONFLICT"
    status = 409


class WorkflowMismatch(CoderError):
    """This report or action belongs to another workflow mode."""

    code = "CODER_WORKFLOW_MODE_MISMATCH"
    status = 409


class CandidateNotFound(CoderError):
    """The memory candidate does not exist in this coder run."""

    code = "CODER_MEMORY_CANDIDATE_NOT_FOUND"
    status = 404


class PrSubmitUnavailable(CoderError):
    """No connected MCP server exposes a pull request tool."""

    code = "CODER_REPOHOST_PR_TOOL_UNAVAILABLE"
    status = 409


__all__ = [
    "BindingNotFound",
    "BoardFailed",
    "CandidateNotFound",
    "CoderError",
    "ItemNotFound",
    "ItemNotIssue",
    "ItemNotTodo",
    "McpUnavailable",
    "PrSubmitUnavailable",
    "ProjectBindingRequired",
    "RepoBindingRequired",
    "RunConflict",
    "RunNotFound",
    "SchemaInvalid",
    "WorkflowMismatch",
]
