"""What a v2 node's agent is told: its objective, the run context, and its inputs."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs


@attrs.frozen
class NodeInput:
    node_id: str
    alias: str
    text: str


def node_system(spec: Mapping[str, Any], agent: Mapping[str, Any]) -> str:
    return (
        f"You are {agent['display_name']} (agent `{agent['agent_id']}`), one agent of the "
        f'automation "{spec["name"]}". Do only the objective of your step, using only the '
        "tools you are given. "
        "Your final answer is handed to the steps that depend on yours: make it complete and "
        "self-contained."
    )


def node_prompt(
    spec: Mapping[str, Any],
    node: Mapping[str, Any],
    *,
    automation_id: str,
    run_id: str,
    context: Mapping[str, Any],
    inputs: Sequence[NodeInput],
    rework_note: str | None = None,
) -> str:
    lines = [
        f"Automation: {spec['name']} ({automation_id})",
        f"Run ID: {run_id}",
        f"Step: {node['node_id']}",
        f"Objective: {node['objective']}",
    ]
    objective = context.get("objective")
    if isinstance(objective, str) and objective.strip():
        lines.append(f"Overall objective: {objective.strip()}")
    if context.get("input_artifact") is not None:
        lines.append("Input artifact: " + _compact(context["input_artifact"]))
    rest = {k: v for k, v in context.items() if k not in ("objective", "input_artifact")}
    if rest:
        lines.append("Run context: " + _compact(rest))
    contract = node.get("output_contract")
    if isinstance(contract, Mapping):
        kind = contract.get("kind")
        guidance = contract.get("summary_guidance")
        if kind:
            lines.append(f"Output contract: {kind}")
        if guidance:
            lines.append(f"Output guidance: {guidance}")
    targets = spec.get("output_targets") or ()
    if targets:
        lines.append("Output targets:")
        lines.extend(f"- {t}" for t in targets)
    if inputs:
        lines.append("")
        lines.append("Inputs from earlier steps:")
        for item in inputs:
            lines.append(f"--- {item.alias} (from step {item.node_id}) ---")
            lines.append(item.text.strip() or "(no output)")
        lines.append("--- end of inputs ---")
    if rework_note:
        lines.append("")
        lines.append(f"Rework requested by the reviewer: {rework_note}")
    return "\n".join(lines)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


__all__ = ["NodeInput", "node_prompt", "node_system"]
