"""Studio workflows: saved automation v2 specs that carry ``metadata.studio``, migrated to structure
version 2.

Version 1 studio workflows ran research as one node. Version 2 splits each such
research node into four stages, keeping the automation id and the original
node id (it becomes the ``finalize`` stage, so nodes downstream still depend on
the same id):

``discover``            find the relevant source corpus (``glob``, ``read``)
``local-source``        read the prioritized local sources (``read``)
``external-research``   targeted web research (``websearch``, ``webfetch``, ``read``)
``finalize``            the original node, now synthesizing the three hand-offs

A node is a version 1 research node when ``metadata.studio.research`` is true,
``metadata.studio.kind`` (or ``metadata.builder.kind``) is ``research``, or it is
the research node of one of the bundled research templates. The studio
metadata ends with ``version: 2`` and ``workflow_structure_version: 2``, and
the version 1 editor drafts (``agent_drafts``, ``node_drafts``,
``node_layout``) are dropped. A spec already at version 2 is left alone.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

STRUCTURE_VERSION = 2
RESEARCH_STAGES = ("discover", "local-source", "external-research", "finalize")

TEMPLATE_RESEARCH_NODES: Mapping[str, str] = {
    "marketing-content-pipeline": "research-brief",
    "competitor-research-pipeline": "scan-market",
    "weekly-newsletter-builder": "curate-issue",
    "sales-prospecting-team": "research-account",
}

_STAGE_TOOLS = {
    "discover": ["glob", "read"],
    "local-source": ["read"],
    "external-research": ["websearch", "webfetch", "read"],
}
_STAGE_SUFFIX = {
    "discover": "discover",
    "local-source": "local-sources",
    "external-research": "external-research",
}
_HANDOFF = {
    "discover": "source_inventory",
    "local-source": "local_source_notes",
    "external-research": "external_research",
}


def structure_version(spec: Mapping[str, Any]) -> int | None:
    """The studio structure version of ``spec`` (``None`` when it is not a studio workflow)."""
    studio = _studio(spec)
    if studio is None:
        return None
    version = studio.get("workflow_structure_version", 1)
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def _studio(spec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    metadata = spec.get("metadata")
    studio = metadata.get("studio") if isinstance(metadata, Mapping) else None
    return studio if isinstance(studio, Mapping) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one (a malformed part reads as absent)."""
    return value if isinstance(value, Mapping) else {}


def _is_research_node(node: Mapping[str, Any], template_node: str | None) -> bool:
    metadata = _mapping(node.get("metadata"))
    studio = _mapping(metadata.get("studio"))
    builder = _mapping(metadata.get("builder"))
    if studio.get("research_stage") in RESEARCH_STAGES:
        return False  # already split
    return (
        studio.get("research") is True
        or studio.get("kind") == "research"
        or builder.get("kind") == "research"
        or (template_node is not None and node.get("node_id") == template_node)
    )


def migrate_studio_workflow(spec: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """``(spec, changed)``: ``spec`` at structure version 2 (a copy; the input is not modified)."""
    version = structure_version(spec)
    if version is None or version >= STRUCTURE_VERSION:
        return dict(spec), False
    migrated = copy.deepcopy(dict(spec))
    studio = dict(_studio(migrated) or {})
    template = studio.get("template_id") or studio.get("templateId")
    template_node = TEMPLATE_RESEARCH_NODES.get(template) if isinstance(template, str) else None
    flow = _mapping(migrated.get("flow"))
    nodes = [n for n in flow.get("nodes") or () if isinstance(n, Mapping)]
    agents = [dict(a) for a in migrated.get("agents") or () if isinstance(a, Mapping)]
    existing_ids = {n.get("node_id") for n in nodes}
    new_nodes: list[dict[str, Any]] = []
    for node in nodes:
        if (
            not _is_research_node(node, template_node)
            or f"{node.get('node_id')}-discover" in existing_ids
        ):
            new_nodes.append(dict(node))
            continue
        stage_nodes, stage_agents = _split(node, agents)
        new_nodes.extend(stage_nodes)
        known = {a.get("agent_id") for a in agents}
        agents.extend(a for a in stage_agents if a["agent_id"] not in known)
    migrated["flow"] = {**flow, "nodes": new_nodes}
    migrated["agents"] = agents
    studio.update({"version": STRUCTURE_VERSION, "workflow_structure_version": STRUCTURE_VERSION})
    for key in ("agent_drafts", "node_drafts", "node_layout"):
        studio.pop(key, None)
    migrated["metadata"] = {**migrated["metadata"], "studio": studio}
    return migrated, True


def _split(
    node: Mapping[str, Any], agents: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    node_id = str(node.get("node_id"))
    agent_id = str(node.get("agent_id"))
    base_agent: dict[str, Any] = next(
        (a for a in agents if a.get("agent_id") == agent_id), {"agent_id": agent_id}
    )
    objective = str(node.get("objective") or "")
    stage_ids = {stage: f"{node_id}-{_STAGE_SUFFIX[stage]}" for stage in _STAGE_SUFFIX}
    prompts = {
        "discover": (
            "Enumerate the workspace and identify the source corpus relevant to: "
            f"{objective} Return a structured hand-off with the discovered and prioritized "
            "paths; read only enough to decide."
        ),
        "local-source": (
            "Read the prioritized local sources from the `source_inventory` hand-off and "
            "return the facts they support, with the files reviewed and not reviewed. "
            "Do not invent facts from file names."
        ),
        "external-research": (
            "Guided by `source_inventory` and `local_source_notes`, do targeted external "
            "research and return the sources reviewed with citations, or state plainly that "
            "search was unavailable."
        ),
    }
    stage_nodes: list[dict[str, Any]] = []
    stage_agents: list[dict[str, Any]] = []
    upstream: list[str] = []
    for stage in ("discover", "local-source", "external-research"):
        stage_agent_id = f"{agent_id}-{_STAGE_SUFFIX[stage]}"
        stage_nodes.append(
            {
                "node_id": stage_ids[stage],
                "agent_id": stage_agent_id,
                "objective": prompts[stage],
                # The first stage takes over the research node's own dependencies.
                "depends_on": list(upstream) if upstream else list(node.get("depends_on") or ()),
                "input_refs": [
                    {"from_step_id": stage_ids[s], "alias": _HANDOFF[s]}
                    for s in _STAGES_BEFORE[stage]
                ]
                if upstream
                else list(node.get("input_refs") or ()),
                "output_contract": {"kind": "structured_json", "validator": "structured_json"},
                "metadata": {
                    "studio": {"research_stage": stage},
                    "builder": {"required_tools": _STAGE_TOOLS[stage]},
                },
            }
        )
        agent = copy.deepcopy(base_agent)
        agent.update(
            {
                "agent_id": stage_agent_id,
                "display_name": f"{base_agent.get('display_name') or agent_id} ({stage})",
            }
        )
        agent["tool_policy"] = {
            "allowlist": list(_STAGE_TOOLS[stage]),
            "denylist": list((base_agent.get("tool_policy") or {}).get("denylist") or ()),
        }
        agent.pop("template_id", None)
        stage_agents.append(agent)
        upstream.append(stage_ids[stage])
    final = dict(node)
    metadata = dict(final.get("metadata") or {})
    metadata["studio"] = {**(metadata.get("studio") or {}), "research_stage": "finalize"}
    metadata["studio"].pop("research", None)
    final.update(
        {
            "depends_on": list(upstream),
            "input_refs": [
                {"from_step_id": stage_ids[s], "alias": _HANDOFF[s]} for s in _STAGE_SUFFIX
            ],
            "metadata": metadata,
            "objective": (
                f"{objective} Use the `source_inventory`, `local_source_notes` and "
                "`external_research` hand-offs as the source of truth instead of repeating "
                "discovery or research."
            ).strip(),
        }
    )
    stage_nodes.append(final)
    return stage_nodes, stage_agents


_STAGES_BEFORE = {
    "discover": (),
    "local-source": ("discover",),
    "external-research": ("discover", "local-source"),
}

__all__ = ["RESEARCH_STAGES", "STRUCTURE_VERSION", "migrate_studio_workflow", "structure_version"]
