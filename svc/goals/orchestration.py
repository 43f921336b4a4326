"""Orchestration records: a graph of workflow, wait and terminal nodes joined by edges.

The draft of an orchestration is version 0 (mutable, possibly invalid); each publish
writes the next immutable version 1..N. Records are frozen attrs classes; the wire
shape is snake_case (``to_wire``) with empty optional fields omitted, and bodies are
parsed with :func:`parse_spec`, whose errors name the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ..convert import structure, unstructure
from ..errors import ValidationFailed
from .errors import InvalidOrchestrationRequest
from .tenancy import LOCAL_TENANT, TenantContext

SCHEMA_VERSION = 1
DEFAULT_MAX_HOPS = 100

NodeKind = Literal["workflow", "wait", "terminal"]
OnLimit = Literal["pause_for_review", "fail"]
OrchestrationStatus = Literal["draft", "published", "archived"]
ORCHESTRATION_STATUSES: tuple[str, ...] = ("draft", "published", "archived")
TerminalOutcome = Literal["complete", "pause", "fail"]


@attrs.frozen
class Position:
    x: float = 0.0
    y: float = 0.0


@attrs.frozen
class ArtifactContract:
    artifact_type: str
    schema: Any = None
    """A JSON-schema subset (``type``, ``required``, nested ``properties``) applied to inline
    values."""
    required: bool = False


@attrs.frozen
class EdgeApproval:
    required: bool = False
    expires_after_ms: int | None = None
    approver_scope: Any = None


@attrs.frozen
class Edge:
    edge_id: str
    from_node_id: str
    to_node_id: str
    transition_key: str
    artifact_contract: ArtifactContract | None = None
    approval: EdgeApproval | None = None
    metadata: Any = None

    @property
    def approval_required(self) -> bool:
        return self.approval is not None and self.approval.required


@attrs.frozen
class Node:
    node_id: str
    kind: NodeKind
    name: str = ""
    position: Position = Position()
    # workflow nodes
    automation_id: str | None = None
    pinned_definition_hash: str | None = None
    allowed_transition_keys: list[str] = attrs.field(factory=list)
    accepts_artifact_types: list[str] = attrs.field(factory=list)
    emits_artifact_types: list[str] = attrs.field(factory=list)
    wait: dict[str, Any] | None = None
    """Wait nodes: their wait spec. Workflow nodes: an optional gate their run waits on before it
    starts."""
    # terminal nodes
    outcome: TerminalOutcome | None = None
    final_artifact_type: str | None = None

    @property
    def is_workflow(self) -> bool:
        return self.kind == "workflow"

    @property
    def is_terminal(self) -> bool:
        return self.kind == "terminal"

    def kind_wire(self) -> dict[str, Any]:
        """The kind-specific fields, tagged by ``kind``."""
        wire: dict[str, Any] = {"kind": self.kind}
        if self.kind == "workflow":
            wire["automation_id"] = self.automation_id
            if self.pinned_definition_hash is not None:
                wire["pinned_definition_hash"] = self.pinned_definition_hash
            for name in (
                "allowed_transition_keys",
                "accepts_artifact_types",
                "emits_artifact_types",
            ):
                values = getattr(self, name)
                if values:
                    wire[name] = list(values)
            if self.wait is not None:
                wire["wait"] = self.wait
        elif self.kind == "wait":
            wire["wait"] = self.wait
        else:
            wire["outcome"] = self.outcome or "complete"
            if self.final_artifact_type is not None:
                wire["final_artifact_type"] = self.final_artifact_type
        return wire

    def to_wire(self) -> dict[str, Any]:
        return {
            "node_id": self.node_id,
            "name": self.name,
            "position": {"x": self.position.x, "y": self.position.y},
            **self.kind_wire(),
        }


@attrs.frozen
class GoalPolicy:
    max_hops: int = DEFAULT_MAX_HOPS
    deadline_at_ms: int | None = None
    max_total_tokens: int | None = None
    max_total_cost_usd: float | None = None
    on_limit: OnLimit = "pause_for_review"

    def to_wire(self) -> dict[str, Any]:
        return _drop_none(unstructure(self))


@attrs.frozen
class Orchestration:
    orchestration_id: str
    name: str
    root_node_id: str
    version: int = 0
    status: OrchestrationStatus = "draft"
    schema_version: int = SCHEMA_VERSION
    description: str | None = None
    nodes: list[Node] = attrs.field(factory=list)
    edges: list[Edge] = attrs.field(factory=list)
    goal_policy: GoalPolicy = GoalPolicy()
    tenant_context: TenantContext = LOCAL_TENANT
    created_at_ms: int = 0
    updated_at_ms: int = 0
    published_at_ms: int | None = None
    metadata: dict[str, Any] | None = None

    def node(self, node_id: str | None) -> Node | None:
        for node in self.nodes:
            if node.node_id == node_id:
                return node
        return None

    def outgoing(self, node_id: str) -> list[Edge]:
        return [e for e in self.edges if e.from_node_id == node_id]

    def edge_for(self, node_id: str, transition_key: str) -> Edge | None:
        for edge in self.edges:
            if edge.from_node_id == node_id and edge.transition_key == transition_key:
                return edge
        return None

    def workflow_nodes(self) -> list[Node]:
        return [n for n in self.nodes if n.is_workflow]

    @property
    def created_by(self) -> Any:
        return (self.metadata or {}).get("created_by")

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "schema_version": self.schema_version,
            "orchestration_id": self.orchestration_id,
            "name": self.name,
        }
        if self.description is not None:
            wire["description"] = self.description
        wire.update(
            {
                "status": self.status,
                "version": self.version,
                "root_node_id": self.root_node_id,
                "nodes": [n.to_wire() for n in self.nodes],
                "edges": [edge_wire(e) for e in self.edges],
                "goal_policy": self.goal_policy.to_wire(),
                "tenant_context": self.tenant_context.to_wire(),
                "created_at_ms": self.created_at_ms,
                "updated_at_ms": self.updated_at_ms,
            }
        )
        if self.published_at_ms is not None:
            wire["published_at_ms"] = self.published_at_ms
        if self.metadata is not None:
            wire["metadata"] = self.metadata
        return wire


def edge_wire(edge: Edge) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "edge_id": edge.edge_id,
        "from_node_id": edge.from_node_id,
        "to_node_id": edge.to_node_id,
        "transition_key": edge.transition_key,
    }
    if edge.artifact_contract is not None:
        wire["artifact_contract"] = _drop_none(unstructure(edge.artifact_contract))
    if edge.approval is not None:
        wire["approval"] = _drop_none(unstructure(edge.approval))
    if edge.metadata is not None:
        wire["metadata"] = edge.metadata
    return wire


def _drop_none(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


# ---------------------------------------------------------------------- parsing
@attrs.frozen
class SpecBody:
    """The writable part of an orchestration (create and update bodies)."""

    name: str
    root_node_id: str
    orchestration_id: str | None = None
    description: str | None = None
    nodes: list[Node] = attrs.field(factory=list)
    edges: list[Edge] = attrs.field(factory=list)
    goal_policy: GoalPolicy | None = None
    metadata: Any = None
    schema_version: int = SCHEMA_VERSION
    expected_updated_at_ms: int | None = None


def parse_spec(data: Any) -> SpecBody:
    """Structure a create/update body; errors are 400 ``invalid_orchestration_request`` naming the
    field."""
    if isinstance(data, Mapping):
        data = {k: v for k, v in data.items() if k not in _SERVER_FIELDS}
    try:
        body = structure(SpecBody, data)
    except ValidationFailed as exc:
        raise InvalidOrchestrationRequest(
            _readable(exc.message), field=exc.extra.get("field")
        ) from None
    if body.orchestration_id is not None and not body.orchestration_id.strip():
        raise InvalidOrchestrationRequest(
            "`orchestration_id` must not be blank", field="orchestration_id"
        )
    if not body.name.strip():
        raise InvalidOrchestrationRequest("`name` must not be blank", field="name")
    return body


_LITERAL = re.compile(r"(\S+) not in literal typing\.Literal\[(.*)\]")


def _readable(message: str) -> str:
    """cattrs' Literal errors name Python types; say which values are allowed instead."""
    match = _LITERAL.search(message)
    if match is None:
        return message
    allowed = match.group(2).replace("'", "")
    return message[: match.start()] + f"`{match.group(1)}` is not one of: {allowed}"


# Fields a client may echo back from a fetched record; the server owns them.
_SERVER_FIELDS = frozenset(
    {"status", "version", "tenant_context", "created_at_ms", "updated_at_ms", "published_at_ms"}
)


def normalize_metadata(value: Any) -> dict[str, Any] | None:
    """Non-object metadata is wrapped as ``{"value": ...}``."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        return dict(value)
    return {"value": value}


def record_to_json(spec: Orchestration) -> dict[str, Any]:
    """The stored form (the wire form is complete enough to rebuild the record)."""
    return spec.to_wire()


def record_from_json(data: Mapping[str, Any]) -> Orchestration:
    nodes = []
    for raw in data.get("nodes", []):
        nodes.append(structure(Node, raw))
    edges = [structure(Edge, raw) for raw in data.get("edges", [])]
    return Orchestration(
        orchestration_id=data["orchestration_id"],
        name=data["name"],
        root_node_id=data["root_node_id"],
        version=int(data.get("version", 0)),
        status=data.get("status", "draft"),
        schema_version=int(data.get("schema_version", SCHEMA_VERSION)),
        description=data.get("description"),
        nodes=nodes,
        edges=edges,
        goal_policy=structure(GoalPolicy, data.get("goal_policy") or {}),
        tenant_context=TenantContext.from_wire(data.get("tenant_context")),
        created_at_ms=int(data.get("created_at_ms", 0)),
        updated_at_ms=int(data.get("updated_at_ms", 0)),
        published_at_ms=data.get("published_at_ms"),
        metadata=data.get("metadata"),
    )


__all__ = [
    "DEFAULT_MAX_HOPS",
    "ORCHESTRATION_STATUSES",
    "ArtifactContract",
    "Edge",
    "EdgeApproval",
    "GoalPolicy",
    "Node",
    "Orchestration",
    "Position",
    "SpecBody",
    "edge_wire",
    "normalize_metadata",
    "parse_spec",
    "record_from_json",
    "record_to_json",
]
