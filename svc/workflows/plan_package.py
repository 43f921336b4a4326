"""Plan packages: the portable, checkable form of a plan, its scope snapshot and its bundle.

A *package* describes a plan as a graph of routines (a planner plan is one
routine, ``main``) whose steps carry their dependencies, plus the trigger
(schedule), the connectors it needs and may use, the per-routine credential
envelopes and where its outputs live. The *scope snapshot* is derived from a
package alone; a *bundle* (``{bundle_version, plan, scope_snapshot}``) carries
both, so an importer can verify that nothing about scope was altered on the way.

Everything here is plain JSON dicts in, JSON dicts out, with no I/O: the
planner stores packages inside drafts and bundles travel through HTTP.
Validation lives in :mod:`svc.workflows.plan_package_validation`, the comparison of two
revisions in :mod:`svc.workflows.plan_package_replay`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from .plans import WorkflowPlan

BUNDLE_VERSION = "1"
MAIN_ROUTINE = "main"
LIFECYCLE_STATES = ("draft", "preview", "approved", "applied")
IMPORTABLE_LIFECYCLES = ("draft", "preview")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def output_roots(workspace_root: str, plan_id: str) -> dict[str, str]:
    base = f"{workspace_root.rstrip('/')}/.svc/plans/{plan_id}"
    return {
        "plan": f"{base}/plan",
        "history": f"{base}/run-history",
        "proof": f"{base}/proof",
        "drafts": f"{base}/drafts",
    }


def connector_bindings(servers: Iterable[str]) -> list[dict[str, str]]:
    return [
        {
            "binding_id": s,
            "binding_type": "mcp_server",
            "capability": f"mcp.{s}",
            "status": "mapped",
        }
        for s in sorted(set(servers))
    ]


def credential_envelopes(package: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per routine, the connectors it is entitled to (derived, never taken from a bundle)."""
    servers = sorted(
        {
            str(b["binding_id"])
            for b in package.get("connector_bindings") or ()
            if isinstance(b, Mapping) and b.get("status") == "mapped" and b.get("binding_id")
        }
    )
    return [
        {"routine_id": r.get("routine_id"), "entitled_connectors": servers}
        for r in package.get("routine_graph") or ()
        if isinstance(r, Mapping)
    ]


# ---------------------------------------------------------------- compile
def compile_package(
    plan: WorkflowPlan,
    *,
    revision: int,
    lifecycle: str = "preview",
    owner_id: str = "local",
) -> dict[str, Any]:
    steps = [
        {
            "step_id": s.step_id,
            "kind": s.kind,
            "label": s.step_id.replace("_", " "),
            "objective": s.objective,
            "agent_role": s.agent_role,
            "dependencies": list(s.depends_on),
            "input_refs": [r.to_wire() for r in s.input_refs],
            "outputs": [s.step_id],
            "output_contract": dict(s.output_contract) if s.output_contract else None,
            "metadata": dict(s.metadata) if s.metadata else None,
        }
        for s in plan.steps
    ]
    package: dict[str, Any] = {
        "plan_id": plan.plan_id,
        "plan_revision": revision,
        "lifecycle_state": lifecycle,
        "title": plan.title,
        "mission": {"goal": plan.original_prompt, "summary": plan.description},
        "owner": {"owner_id": owner_id, "scope": "workspace", "audience": "internal"},
        "workspace_root": plan.workspace_root,
        "execution_target": plan.execution_target,
        "trigger": dict(plan.schedule),
        "routine_graph": [
            {
                "routine_id": MAIN_ROUTINE,
                "semantic_kind": _semantic_kind(plan),
                "dependencies": [],
                "steps": steps,
            }
        ],
        "connector_intents": [
            {"capability": c, "required": True} for c in plan.requires_integrations
        ],
        "connector_bindings": connector_bindings(plan.allowed_mcp_servers),
        "output_roots": output_roots(plan.workspace_root, plan.plan_id),
        "metadata": {"planner_version": plan.planner_version, "plan_source": plan.plan_source},
    }
    package["credential_envelopes"] = credential_envelopes(package)
    return package


def _semantic_kind(plan: WorkflowPlan) -> str:
    kinds = {s.kind for s in plan.steps}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def scope_snapshot(package: Mapping[str, Any]) -> dict[str, Any]:
    """What a package may touch and how its routines hand off: derived, so it can be re-checked."""
    routines = [r for r in package.get("routine_graph") or () if isinstance(r, Mapping)]
    return {
        "plan_id": package.get("plan_id"),
        "plan_revision": package.get("plan_revision"),
        "output_roots": package.get("output_roots"),
        "connector_bindings": sorted(
            (dict(b) for b in package.get("connector_bindings") or () if isinstance(b, Mapping)),
            key=canonical_json,
        ),
        "credential_envelopes": credential_envelopes(package),
        "routine_scopes": [
            {
                "routine_id": r.get("routine_id"),
                "semantic_kind": r.get("semantic_kind"),
                "trigger": package.get("trigger"),
                "dependencies": list(r.get("dependencies") or ()),
                "step_ids": [
                    s.get("step_id") for s in r.get("steps") or () if isinstance(s, Mapping)
                ],
            }
            for r in routines
        ],
    }


def export_bundle(package: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "bundle_version": BUNDLE_VERSION,
        "plan": dict(package),
        "scope_snapshot": scope_snapshot(package),
    }


__all__ = [
    "BUNDLE_VERSION",
    "IMPORTABLE_LIFECYCLES",
    "LIFECYCLE_STATES",
    "MAIN_ROUTINE",
    "canonical_json",
    "compile_package",
    "connector_bindings",
    "credential_envelopes",
    "digest",
    "export_bundle",
    "output_roots",
    "scope_snapshot",
]
