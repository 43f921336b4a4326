"""Pinning workflow nodes to automation definition hashes.

A workflow node names an automation; ``pinned_definition_hash`` records which
definition of it the orchestration was built against (``"sha256:<hex>"`` of the
automation's canonical JSON, computed by the automations domain). Refreshing a draft
pins every node to the current definition of its same-tenant automation. Publishing
requires every node pinned and fresh, and freezes those exact definitions into the
version: a goal started from it runs the pinned snapshots, whatever later edits do
to the automations, so a running goal never moves.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from .orchestration import Orchestration
from .tenancy import TenantContext
from .validation import Issue
from .workflows import WorkflowDefinition, Workflows

ReferenceState = Literal["missing", "unpinned", "fresh", "stale"]


@attrs.frozen
class Reference:
    node_id: str
    automation_id: str
    state: ReferenceState
    pinned_hash: str | None = None
    current_hash: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "node_id": self.node_id,
            "automation_id": self.automation_id,
            "state": self.state,
        }
        if self.pinned_hash is not None:
            wire["pinned_hash"] = self.pinned_hash
        if self.current_hash is not None:
            wire["current_hash"] = self.current_hash
        return wire


async def current_definitions(
    spec: Orchestration, workflows: Workflows
) -> dict[str, WorkflowDefinition]:
    """The current definition of each automation the spec names, when it exists in the spec's
    tenant."""
    found: dict[str, WorkflowDefinition] = {}
    for node in spec.workflow_nodes():
        automation_id = node.automation_id or ""
        if automation_id in found or not automation_id.strip():
            continue
        definition = await workflows.definition(automation_id)
        if definition is not None and _same_tenant(definition.tenant, spec.tenant_context):
            found[automation_id] = definition
    return found


def _same_tenant(a: TenantContext, b: TenantContext) -> bool:
    return a.key() == b.key()


def references_of(
    spec: Orchestration, definitions: dict[str, WorkflowDefinition]
) -> list[Reference]:
    refs = []
    for node in spec.workflow_nodes():
        automation_id = node.automation_id or ""
        definition = definitions.get(automation_id)
        pinned = node.pinned_definition_hash
        if definition is None:
            refs.append(Reference(node.node_id, automation_id, "missing", pinned_hash=pinned))
        elif pinned is None:
            refs.append(
                Reference(
                    node.node_id, automation_id, "unpinned", current_hash=definition.definition_hash
                )
            )
        elif pinned == definition.definition_hash:
            refs.append(
                Reference(node.node_id, automation_id, "fresh", pinned, definition.definition_hash)
            )
        else:
            refs.append(
                Reference(node.node_id, automation_id, "stale", pinned, definition.definition_hash)
            )
    return refs


def stale_only(refs: list[Reference]) -> list[Reference]:
    return [r for r in refs if r.state == "stale"]


def reference_issues(refs: list[Reference]) -> list[Issue]:
    """Report issues for references whose automation is missing (or belongs to another tenant)."""
    return [
        Issue(
            "missing_workflow",
            f"automation {r.automation_id!r} does not exist in this tenant",
            node_id=r.node_id,
        )
        for r in refs
        if r.state == "missing" and r.automation_id.strip()
    ]


def refreshed(
    spec: Orchestration, definitions: dict[str, WorkflowDefinition]
) -> tuple[Orchestration, list[str]]:
    """The spec with every existing workflow pinned to its current hash, and the node ids that
    changed."""
    changed: list[str] = []
    nodes = []
    for node in spec.nodes:
        definition = definitions.get(node.automation_id or "") if node.is_workflow else None
        if definition is not None and node.pinned_definition_hash != definition.definition_hash:
            node = attrs.evolve(node, pinned_definition_hash=definition.definition_hash)
            changed.append(node.node_id)
        nodes.append(node)
    return attrs.evolve(spec, nodes=nodes), changed


def publishable(refs: list[Reference]) -> bool:
    """Publishing needs every workflow reference pinned and fresh."""
    return all(r.state == "fresh" for r in refs)


__all__ = [
    "Reference",
    "current_definitions",
    "publishable",
    "reference_issues",
    "references_of",
    "refreshed",
    "stale_only",
]
