"""What a routine run asks the model: the mission prompt and the mode's contract.

The prompt is built from ``args.prompt``, ``args.success_criteria``, the run's
allowed tools and its output targets. Orchestrated mode carries the Plan, Do,
Verify, Notify contract (and, with ``orchestrator_only_tool_calls``, the
stricter tool discipline) in the system instructions and in the prompt.
An entrypoint that names a registered tool runs that tool directly
(``/tool <entrypoint> <args>``), without the model.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from typing import Any

from .records import RoutineRun, success_criteria

RESERVED_ARGS = frozenset(
    {
        "prompt",
        "success_criteria",
        "mode",
        "briefing",
        "orchestrator_only_tool_calls",
        "model_policy",
        "uses_external_integrations",
        "connector_id",
        "tool_args",
    }
)

ORCHESTRATED_CONTRACT = (
    "You run a scheduled automation in orchestrated mode. Follow the Plan -> Do -> Verify -> "
    "Notify contract:\n"
    "1. Plan: restate the objective and list the steps you will take.\n"
    "2. Do: carry the steps out with the allowed tools.\n"
    "3. Verify: check the result against every success criterion and say which ones hold.\n"
    "4. Notify: end with a concise final report of what was done, what was verified and where the "
    "outputs are.\n"
    "The orchestrator owns final decisions and the final output."
)
ORCHESTRATOR_ONLY_TOOLS = (
    "Tool policy: only the orchestrator executes tools; helper roles only propose actions and "
    "results."
)
STANDALONE_CONTRACT = (
    "You run a scheduled automation as a standalone mission: do the objective with the allowed "
    "tools and end with a concise final report of what was done, what was verified and where "
    "the outputs are."
)


def system_contract(run: RoutineRun) -> str:
    if run.mode != "orchestrated":
        return STANDALONE_CONTRACT
    if run.args.get("orchestrator_only_tool_calls"):
        return ORCHESTRATED_CONTRACT + "\n" + ORCHESTRATOR_ONLY_TOOLS
    return ORCHESTRATED_CONTRACT


def tool_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments a tool entrypoint is called with.

    ``args.tool_args``, else the non-routine args.
    """
    explicit = args.get("tool_args")
    if isinstance(explicit, Mapping):
        return dict(explicit)
    return {k: v for k, v in args.items() if k not in RESERVED_ARGS}


def build_prompt(run: RoutineRun, *, registered_tools: Container[str]) -> str:
    args = run.args
    entrypoint = run.entrypoint
    if entrypoint in registered_tools:
        return f"/tool {entrypoint} {json.dumps(tool_args(args), ensure_ascii=False)}"
    prompt = args.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return (
            f"Execute routine '{run.routine_id}' using entrypoint '{entrypoint}' with args: "
            f"{json.dumps(dict(args), ensure_ascii=False, sort_keys=True)}"
        )
    lines = [
        f"Automation ID: {run.routine_id}",
        f"Run ID: {run.run_id}",
        f"Mode: {run.mode}",
        f"Mission Objective: {prompt.strip()}",
    ]
    briefing = args.get("briefing")
    if isinstance(briefing, str) and briefing.strip():
        lines.append(f"Briefing: {briefing.strip()}")
    criteria = success_criteria(args)
    if criteria:
        lines.append("Success Criteria:")
        lines.extend(f"- {c}" for c in criteria)
    tools = run.allowed_tools
    lines.append(
        f"Allowed Tools: {', '.join(tools)}"
        if tools
        else "Allowed Tools: none (answer without tools)"
    )
    targets = run.output_targets
    if targets:
        lines.append("Output Targets:")
        lines.extend(
            f"- {t} (write it at the workspace path `{t[len('file://') :]}`)" for t in targets
        )
    else:
        lines.append("Output Targets: none configured")
    if run.mode == "orchestrated":
        lines.append("Execution Pattern: Plan -> Do -> Verify -> Notify")
        lines.append("Role Contract: Orchestrator owns final decisions and final output.")
        if args.get("orchestrator_only_tool_calls"):
            lines.append(
                "Tool Policy: only the orchestrator may execute tools; helper roles propose "
                "actions/results."
            )
    else:
        lines.append("Execution Pattern: Standalone mission run")
    lines.append(
        "Deliverable: produce a concise final report that states what was done, what was verified, "
        "and final artifact locations."
    )
    return "\n".join(lines)


__all__ = [
    "ORCHESTRATED_CONTRACT",
    "STANDALONE_CONTRACT",
    "build_prompt",
    "system_contract",
    "tool_args",
]
