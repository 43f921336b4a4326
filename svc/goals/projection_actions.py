"""The projection's actions: what the caller may do to the goal now.

Every action is listed, enabled or with the reason it is disabled (``goal_terminal``,
``goal_already_paused``, ``goal_not_paused``, ``not_authorized``,
``historical_projection_read_only``), so a control panel renders them without deciding.
"""

from __future__ import annotations

from typing import Any

from .goal import Goal, Handoff, Wait
from .tenancy import APPROVE, RESOLVE_WAIT, Caller, owner_id_of


def _descriptor(
    action_id: str,
    kind: str,
    label: str,
    *,
    enabled: bool,
    destructive: bool,
    reason_required: bool,
    impact: str,
    disabled_reason: str | None = None,
    decision_options: list[str] | None = None,
    target_id: str | None = None,
    payload_fields: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "id": action_id,
        "kind": kind,
        "label": label,
        "enabled": enabled,
        "destructive": destructive,
        "reason_required": reason_required,
        "decision_options": decision_options or [],
        "target_id": target_id,
        "impact": impact,
        "disabled_reason": None if enabled else disabled_reason,
        "payload_fields": payload_fields or [],
    }


def action_descriptors(
    goal: Goal,
    handoffs: list[Handoff],
    waits: list[Wait],
    caller: Caller,
    *,
    read_only: bool = False,
) -> list[dict[str, Any]]:
    """What the caller may do to the goal now; each action is listed enabled or with a disabled
    reason."""
    owner = caller.owns(owner_id_of(goal.started_by))

    def gate(reason: str | None, *, authorized: bool = True) -> tuple[bool, str | None]:
        if read_only:
            return False, "historical_projection_read_only"
        if reason is not None:
            return False, reason
        if not authorized:
            return False, "not_authorized"
        return True, None

    terminal = "goal_terminal" if goal.terminal else None
    actions = []
    enabled, why = gate(
        terminal or ("goal_already_paused" if goal.status == "paused" else None), authorized=owner
    )
    actions.append(
        _descriptor(
            "pause",
            "pause",
            "Pause goal",
            enabled=enabled,
            destructive=True,
            reason_required=True,
            impact="stops new handoffs until resumed",
            disabled_reason=why,
        )
    )
    enabled, why = gate(
        terminal or ("goal_not_paused" if goal.status != "paused" else None), authorized=owner
    )
    actions.append(
        _descriptor(
            "resume",
            "resume",
            "Resume goal",
            enabled=enabled,
            destructive=False,
            reason_required=False,
            impact="allows handoffs again",
            disabled_reason=why,
        )
    )
    enabled, why = gate(terminal, authorized=owner)
    actions.append(
        _descriptor(
            "cancel",
            "cancel",
            "Cancel goal",
            enabled=enabled,
            destructive=True,
            reason_required=True,
            impact="cancels the active run, its waits and unconsumed handoffs",
            disabled_reason=why,
        )
    )
    for handoff in handoffs:
        if handoff.status != "pending_approval":
            continue
        enabled, why = gate(terminal, authorized=caller.has_authority(APPROVE))
        actions.append(
            _descriptor(
                f"handoff:{handoff.handoff_id}:decision",
                "handoff",
                f"Decide handoff {handoff.transition_key} to {handoff.target_node_id}",
                enabled=enabled,
                destructive=True,
                reason_required=True,
                impact="approves or rejects the pending transition",
                disabled_reason=why,
                decision_options=["approve", "reject"],
                target_id=handoff.handoff_id,
            )
        )
    for wait in waits:
        if not (wait.open and wait.wait_kind == "external_condition"):
            continue
        enabled, why = gate(terminal, authorized=caller.has_authority(RESOLVE_WAIT))
        actions.append(
            _descriptor(
                f"wait:{wait.wait_id}:resolve",
                "wait",
                f"Resolve wait of node {wait.phase_id}",
                enabled=enabled,
                destructive=False,
                reason_required=False,
                impact="lets the waiting run start",
                disabled_reason=why,
                target_id=wait.wait_id,
                payload_fields=[
                    {"name": "value", "label": "Resolution", "required": False, "format": "json"}
                ],
            )
        )
    return actions


__all__ = ["action_descriptors"]
