"""Artifacts carried by handoffs and completions: shape, contract and content policy.

An artifact is ``{artifact_type, value? | content_path? | content_digest?, ...}``: an inline
JSON value (at most 256 KiB serialized) or a file in the workspace named by a relative
path with its SHA-256 digest. The content policy (the file exists, is a regular file
inside the workspace after resolving symlinks, and matches its digest) is checked before
anything else of a transition, so a bad artifact never creates a handoff.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import ArtifactPolicyViolation, InvalidGoalRequest
from .orchestration import ArtifactContract
from .schema_subset import schema_errors

MAX_INLINE_BYTES = 256 * 1024
_DIGEST = re.compile(r"^(sha256:)?[0-9a-fA-F]{64}$")


def parse_artifact(data: Any, *, field: str = "artifact") -> dict[str, Any]:
    """An artifact object with a non-blank ``artifact_type`` (400 naming ``field`` otherwise)."""
    if not isinstance(data, Mapping):
        raise InvalidGoalRequest(f"`{field}` must be an object with an artifact_type", field=field)
    artifact_type = data.get("artifact_type")
    if not isinstance(artifact_type, str) or not artifact_type.strip():
        raise InvalidGoalRequest(
            f"`{field}.artifact_type` must be a non-blank string", field=f"{field}.artifact_type"
        )
    for name in ("content_path", "content_digest"):
        if name in data and data[name] is not None and not isinstance(data[name], str):
            raise InvalidGoalRequest(f"`{field}.{name}` must be a string", field=f"{field}.{name}")
    return dict(data)


def has_content(artifact: Mapping[str, Any]) -> bool:
    return any(artifact.get(k) is not None for k in ("value", "content_path", "content_digest"))


def shape_problems(artifact: Mapping[str, Any]) -> list[str]:
    """Structural problems of an artifact (size, path form, digest form)."""
    problems: list[str] = []
    if "value" in artifact and artifact["value"] is not None:
        size = len(
            json.dumps(artifact["value"], separators=(",", ":"), ensure_ascii=False).encode()
        )
        if size > MAX_INLINE_BYTES:
            problems.append(
                f"inline artifact value is {size} bytes; the limit is {MAX_INLINE_BYTES}"
            )
    path = artifact.get("content_path")
    if path is not None:
        pure = PurePosixPath(path)
        if not path.strip() or pure.is_absolute() or Path(path).is_absolute() or ".." in pure.parts:
            problems.append(
                "content_path must be a relative path inside the workspace without `..`"
            )
        if artifact.get("content_digest") is None:
            problems.append("content_path requires a content_digest")
    artifact_digest = artifact.get("content_digest")
    if artifact_digest is not None and not _DIGEST.match(artifact_digest):
        problems.append("content_digest must be 64 hex digits (optionally prefixed sha256:)")
    return problems


def contract_problems(
    artifact: Mapping[str, Any] | None, contract: ArtifactContract | None
) -> list[str]:
    """Why ``artifact`` does not satisfy the edge's contract (empty when it does)."""
    if contract is None:
        return []
    if artifact is None:
        return ["the edge requires an artifact"] if contract.required else []
    problems: list[str] = []
    if artifact.get("artifact_type") != contract.artifact_type:
        problems.append(f"artifact_type must be {contract.artifact_type!r}")
    if contract.required and not has_content(artifact):
        problems.append(
            "the contract requires artifact content (value, content_path or content_digest)"
        )
    if contract.schema is not None and artifact.get("value") is not None:
        problems.extend(schema_errors(contract.schema, artifact["value"]))
    return problems


def enforce_content_policy(
    artifact: Mapping[str, Any] | None, workspace: Path, *, field: str = "artifact"
) -> None:
    """A ``content_path`` must be a regular file inside the workspace matching its digest (422
    otherwise)."""
    if artifact is None or artifact.get("content_path") is None:
        return
    raw = str(artifact["content_path"])
    root = workspace.resolve()
    if Path(raw).is_absolute() or ".." in PurePosixPath(raw).parts:
        raise ArtifactPolicyViolation(
            f"`{field}.content_path` must stay inside the workspace", field=f"{field}.content_path"
        )
    resolved = (root / raw).resolve()
    if not resolved.is_relative_to(root):
        raise ArtifactPolicyViolation(
            f"`{field}.content_path` resolves outside the workspace", field=f"{field}.content_path"
        )
    if not resolved.is_file():
        raise ArtifactPolicyViolation(
            f"`{field}.content_path` is not a regular file in the workspace",
            field=f"{field}.content_path",
        )
    expected = artifact.get("content_digest")
    if expected is not None:
        actual = hashlib.sha256(resolved.read_bytes()).hexdigest()
        if actual != str(expected).lower().removeprefix("sha256:"):
            raise ArtifactPolicyViolation(
                f"`{field}.content_digest` does not match the file's SHA-256",
                field=f"{field}.content_digest",
            )


__all__ = [
    "MAX_INLINE_BYTES",
    "contract_problems",
    "enforce_content_policy",
    "has_content",
    "parse_artifact",
    "shape_problems",
]
