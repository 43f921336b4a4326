"""Waits that hold a linked run before it starts: timers and external conditions.

A workflow node may declare a ``wait`` gate. When the goal enters that node, the run it
reserves for the node is held by a wait record instead of starting; the goal actor wakes
it when its timer fires, when ``POST /goals/{goal_id}/waits/{wait_id}/resolve`` delivers
the external condition, or when its timeout policy says so. The same run (same id) then
starts, with the resolution in its context.

Everything here is pure: the actor applies the results.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from .errors import InvalidGoalRequest, WaitResolutionConflict
from .goal import Goal, Wait
from .ids import wait_id_for
from .orchestration import Node
from .schema_subset import schema_errors
from .waitspec import resolve_binding

MAX_KEY_BYTES = 512
MAX_PAYLOAD_BYTES = 16 * 1024

DueKind = Literal["timer_fired", "timed_out", "escalated", "reminder"]


def gate_wait(
    goal: Goal, node: Node, run_id: str, now_ms: int, node_outputs: Mapping[str, Any]
) -> Wait | None:
    """The wait that holds ``run_id`` when ``node`` declares a gate, else None."""
    spec = node.wait
    if not spec:
        return None
    kind = str(spec["kind"])
    wake_at = None
    details: dict[str, Any] = {}
    if kind == "timer":
        wake_at = (
            int(spec["wake_at"])
            if spec.get("wake_at") is not None
            else now_ms + int(spec["delay_ms"])
        )
    else:
        details["condition_key"] = resolve_binding(spec["condition_key"], node_outputs)
        if spec.get("payload_schema") is not None:
            details["payload_schema"] = spec["payload_schema"]
    timeout = spec.get("timeout")
    policy = None
    if isinstance(timeout, Mapping):
        policy = {
            "timeout_at_ms": now_ms + int(timeout["expires_after_ms"]),
            "on_timeout": timeout["on_timeout"],
        }
        for name in ("escalate_to", "remind_every_ms"):
            if timeout.get(name) is not None:
                policy[name] = timeout[name]
    return Wait(
        wait_id=wait_id_for(run_id, node.node_id),
        run_id=run_id,
        goal_id=goal.goal_id,
        wait_kind=kind,
        status="waiting",
        tenant_context=goal.tenant_context,
        phase_id=node.node_id,
        created_at_ms=now_ms,
        updated_at_ms=now_ms,
        reason=f"run waits on {kind.replace('_', ' ')} before node {node.node_id!r} starts",
        wake_at_ms=wake_at,
        timeout_policy=policy,
        metadata={"details": details} if details else None,
    )


def gating_wait(waits: list[Wait], run_id: str | None) -> Wait | None:
    """The wait holding ``run_id``, if it has not let the run go yet."""
    for wait in waits:
        if wait.run_id == run_id and wait.open:
            return wait
    return None


def run_may_start(waits: list[Wait], run_id: str) -> bool:
    """A run starts once none of its waits is open and none ended by cancelling it."""
    for wait in waits:
        if wait.run_id != run_id:
            continue
        if wait.open or wait.status == "cancelled":
            return False
        if wait.status == "timed_out" and (wait.timeout_policy or {}).get("on_timeout") == "cancel":
            return False
    return True


def next_due_ms(wait: Wait) -> int | None:
    """When the actor must next look at ``wait`` (None: only a resolution can move it)."""
    if wait.status not in ("waiting", "escalated"):
        return None
    times: list[int] = []
    if wait.status == "waiting" and wait.wake_at_ms is not None:
        times.append(wait.wake_at_ms)
    policy = wait.timeout_policy or {}
    timeout_at = policy.get("timeout_at_ms")
    if timeout_at is not None:
        if wait.status == "waiting" and policy.get("on_timeout") != "remind":
            times.append(int(timeout_at))
        elif policy.get("on_timeout") == "remind":
            sent = int((wait.metadata or {}).get("reminders_sent", 0))
            every = policy.get("remind_every_ms")
            if sent == 0:
                times.append(int(timeout_at))
            elif every:
                times.append(int(timeout_at) + sent * int(every))
    return min(times) if times else None


def apply_due(wait: Wait, now_ms: int) -> tuple[Wait, DueKind] | None:
    """What happens to ``wait`` at ``now_ms``: its timer fires, or its timeout policy applies."""
    due = next_due_ms(wait)
    if due is None or due > now_ms:
        return None
    metadata = dict(wait.metadata or {})
    if wait.status == "waiting" and wait.wake_at_ms is not None and wait.wake_at_ms <= now_ms:
        return attrs.evolve(
            wait,
            status="woken",
            updated_at_ms=now_ms,
            completed_at_ms=now_ms,
            wake_idempotency_key=f"timer:{wait.wait_id}",
        ), "timer_fired"
    on_timeout = (wait.timeout_policy or {}).get("on_timeout")
    if on_timeout == "remind":
        metadata["reminders_sent"] = int(metadata.get("reminders_sent", 0)) + 1
        return attrs.evolve(wait, updated_at_ms=now_ms, metadata=metadata), "reminder"
    if on_timeout == "escalate":
        metadata["escalated_at_ms"] = now_ms
        return attrs.evolve(
            wait, status="escalated", updated_at_ms=now_ms, metadata=metadata
        ), "escalated"
    metadata["timeout_action"] = on_timeout
    return attrs.evolve(
        wait, status="timed_out", updated_at_ms=now_ms, completed_at_ms=now_ms, metadata=metadata
    ), "timed_out"


def check_resolution_input(idempotency_key: Any, payload: Any) -> str:
    """The trimmed key; 400 naming the field when the key or the payload is out of bounds."""
    if not isinstance(idempotency_key, str) or not idempotency_key.strip():
        raise InvalidGoalRequest(
            "`idempotency_key` is required to resolve a wait", field="idempotency_key"
        )
    key = idempotency_key.strip()
    if len(key.encode()) > MAX_KEY_BYTES:
        raise InvalidGoalRequest(
            f"`idempotency_key` exceeds {MAX_KEY_BYTES} bytes", field="idempotency_key"
        )
    size = len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_PAYLOAD_BYTES:
        raise InvalidGoalRequest(
            f"the resolution payload is {size} bytes; the limit is {MAX_PAYLOAD_BYTES}",
            field="payload",
        )
    return key


def resolve(
    wait: Wait, key: str, payload: Any, now_ms: int, resolved_by: Mapping[str, Any]
) -> tuple[Wait, bool]:
    """The woken wait and whether this call changed it (False: an idempotent repeat)."""
    completion_key = f"external:{wait.wait_id}:{key}"
    if wait.status == "woken":
        if wait.wake_idempotency_key == completion_key:
            return wait, False
        raise WaitResolutionConflict(
            "the wait was already resolved with another idempotency key",
            wait_id=wait.wait_id,
            wait_status=wait.status,
        )
    if wait.wait_kind != "external_condition":
        raise WaitResolutionConflict(
            "wait is not resolvable: only external-condition waits take a resolution",
            wait_id=wait.wait_id,
            wait_kind=wait.wait_kind,
        )
    if wait.status not in ("waiting", "escalated"):
        raise WaitResolutionConflict(
            f"wait is not resolvable: it is {wait.status}",
            wait_id=wait.wait_id,
            wait_status=wait.status,
        )
    schema = ((wait.metadata or {}).get("details") or {}).get("payload_schema")
    problems = schema_errors(schema, payload) if schema is not None else []
    if problems:
        raise InvalidGoalRequest(
            "the resolution does not match the wait's payload_schema: " + "; ".join(problems),
            field="payload",
            problems=problems,
        )
    metadata = {**(wait.metadata or {}), "resolution": payload, "resolved_by": dict(resolved_by)}
    woken = attrs.evolve(
        wait,
        status="woken",
        updated_at_ms=now_ms,
        completed_at_ms=now_ms,
        wake_idempotency_key=completion_key,
        metadata=metadata,
    )
    return woken, True


def cancelled(wait: Wait, now_ms: int, reason: str) -> Wait:
    metadata = {**(wait.metadata or {}), "cancellation_reason": reason}
    return attrs.evolve(
        wait,
        status="cancelled",
        updated_at_ms=now_ms,
        completed_at_ms=now_ms,
        wake_idempotency_key=f"goal-cancel:{wait.wait_id}",
        metadata=metadata,
    )


__all__ = [
    "MAX_KEY_BYTES",
    "MAX_PAYLOAD_BYTES",
    "apply_due",
    "cancelled",
    "check_resolution_input",
    "gate_wait",
    "gating_wait",
    "next_due_ms",
    "resolve",
    "run_may_start",
]
