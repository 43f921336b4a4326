"""Dry-run preview of one transition against an orchestration: would it be allowed?

Pure: reads the spec, touches nothing.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..convert import aliases, structure
from ..errors import ValidationFailed
from .errors import InvalidOrchestrationRequest
from .orchestration import Orchestration


@attrs.frozen
class DryRunBody:
    """Snake_case on the wire; the SDKs' camelCase spelling is accepted too."""

    from_node_id: str = aliases("fromNodeId", "fromNodeID")
    transition_key: str = aliases("transitionKey")
    artifact_type: str | None = aliases("artifactType", default=None)
    version: int | None = None


def parse_dry_run(data: Any) -> DryRunBody:
    try:
        return structure(DryRunBody, data)
    except ValidationFailed as exc:
        raise InvalidOrchestrationRequest(exc.message, field=exc.extra.get("field")) from None


def dry_run(spec: Orchestration, body: DryRunBody) -> dict[str, Any]:
    issues: list[dict[str, Any]] = []
    source = spec.node(body.from_node_id)
    if source is None:
        issues.append({"code": "unknown_source_node", "node_id": body.from_node_id})
    elif (
        source.is_workflow
        and source.allowed_transition_keys
        and body.transition_key not in source.allowed_transition_keys
    ):
        issues.append(
            {
                "code": "transition_key_not_allowed",
                "node_id": body.from_node_id,
                "transition_key": body.transition_key,
            }
        )
    edge = spec.edge_for(body.from_node_id, body.transition_key)
    if edge is None:
        issues.append(
            {
                "code": "no_matching_edge",
                "node_id": body.from_node_id,
                "transition_key": body.transition_key,
            }
        )
        return {"allowed": False, "issues": issues}
    contract = edge.artifact_contract
    if contract is not None:
        if body.artifact_type is not None and body.artifact_type != contract.artifact_type:
            issues.append(
                {
                    "code": "artifact_type_mismatch",
                    "edge_id": edge.edge_id,
                    "expected": contract.artifact_type,
                    "provided": body.artifact_type,
                }
            )
        if contract.required and body.artifact_type is None:
            issues.append({"code": "artifact_required", "edge_id": edge.edge_id})
    target = spec.node(edge.to_node_id)
    preview_edge: dict[str, Any] = {"edge_id": edge.edge_id, "transition_key": edge.transition_key}
    if contract is not None:
        preview_edge["artifact_contract"] = {
            "artifact_type": contract.artifact_type,
            "required": contract.required,
        }
    preview_edge["approval_required"] = edge.approval_required
    result: dict[str, Any] = {"allowed": not issues, "issues": issues, "edge": preview_edge}
    if target is not None:
        result["target"] = {
            "node_id": target.node_id,
            "name": target.name,
            "kind": target.kind_wire(),
        }
    return result


__all__ = ["DryRunBody", "dry_run", "parse_dry_run"]
