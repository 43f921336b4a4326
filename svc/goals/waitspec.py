"""Wait specs: what a wait node declares, or what a workflow node's run waits on before it starts.

Kinds (tagged by ``kind``): ``timer {delay_ms | wake_at, timeout?}``, ``approval
{decisions[], expires_after_ms?, timeout?}``, ``webhook {trigger_id, provider?,
provider_event_kind?, correlation {field, value}, timeout}`` and ``external_condition
{condition_key, timeout, payload_schema?}``. A binding is ``{"source": "literal", "value"}``
or ``{"source": "node_output", "node_id", "json_pointer"?}``; a timeout is
``{expires_after_ms > 0, on_timeout: cancel|escalate|remind|resume, escalate_to?,
remind_every_ms?}``.

Only ``timer`` and ``external_condition`` can gate a workflow node's run: those are the
kinds the goal runtime can wake (a deadline, or ``POST .../waits/{id}/resolve``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

WAIT_KINDS = ("timer", "approval", "webhook", "external_condition")
GATE_KINDS = ("timer", "external_condition")
ON_TIMEOUT = ("cancel", "escalate", "remind", "resume")
CORRELATION_FIELDS = ("provider_event_id", "idempotency_key", "body_digest")


def wait_spec_problems(spec: Any) -> list[str]:
    """Why ``spec`` is not a well-formed wait spec (empty when it is)."""
    if not isinstance(spec, Mapping):
        return ["wait spec must be an object"]
    kind = spec.get("kind")
    if kind not in WAIT_KINDS:
        return [f"wait kind must be one of {', '.join(WAIT_KINDS)}"]
    problems: list[str] = []
    timeout = spec.get("timeout")
    if kind in ("webhook", "external_condition") and timeout is None:
        problems.append(f"{kind} waits require a timeout")
    if timeout is not None:
        problems.extend(_timeout_problems(timeout))
    if kind == "timer":
        delay, wake_at = spec.get("delay_ms"), spec.get("wake_at")
        if (delay is None) == (wake_at is None):
            problems.append("timer waits need exactly one of delay_ms or wake_at")
        for name, value in (("delay_ms", delay), ("wake_at", wake_at)):
            if value is not None and not _non_negative_int(value):
                problems.append(f"timer {name} must be a non-negative integer")
    elif kind == "approval":
        decisions = spec.get("decisions")
        if (
            not isinstance(decisions, list)
            or not decisions
            or not all(isinstance(d, str) and d.strip() for d in decisions)
        ):
            problems.append("approval waits need a non-empty decisions list")
        expires = spec.get("expires_after_ms")
        if expires is not None and not _positive_int(expires):
            problems.append("approval expires_after_ms must be a positive integer")
    elif kind == "webhook":
        if not _non_blank(spec.get("trigger_id")):
            problems.append("webhook waits need a trigger_id")
        correlation = spec.get("correlation")
        if (
            not isinstance(correlation, Mapping)
            or correlation.get("field") not in CORRELATION_FIELDS
        ):
            problems.append(
                f"webhook correlation.field must be one of {', '.join(CORRELATION_FIELDS)}"
            )
        else:
            problems.extend(_binding_problems(correlation.get("value"), "correlation.value"))
    else:
        problems.extend(_binding_problems(spec.get("condition_key"), "condition_key"))
        schema = spec.get("payload_schema")
        if schema is not None and not isinstance(schema, Mapping):
            problems.append("payload_schema must be an object")
    return problems


def _timeout_problems(timeout: Any) -> list[str]:
    if not isinstance(timeout, Mapping):
        return ["timeout must be an object"]
    problems = []
    if not _positive_int(timeout.get("expires_after_ms")):
        problems.append("timeout.expires_after_ms must be a positive integer")
    if timeout.get("on_timeout") not in ON_TIMEOUT:
        problems.append(f"timeout.on_timeout must be one of {', '.join(ON_TIMEOUT)}")
    remind = timeout.get("remind_every_ms")
    if remind is not None and not _positive_int(remind):
        problems.append("timeout.remind_every_ms must be a positive integer")
    return problems


def _binding_problems(binding: Any, where: str) -> list[str]:
    if not isinstance(binding, Mapping):
        return [f"{where} must be a binding object"]
    source = binding.get("source")
    if source == "literal":
        return [] if "value" in binding else [f"{where} literal binding needs a value"]
    if source == "node_output":
        return (
            []
            if _non_blank(binding.get("node_id"))
            else [f"{where} node_output binding needs a node_id"]
        )
    return [f"{where}.source must be literal or node_output"]


def resolve_binding(binding: Mapping[str, Any], node_outputs: Mapping[str, Any]) -> Any:
    """The bound value: a literal, or a node output of the run that led here (JSON pointer
    optional)."""
    if binding.get("source") == "literal":
        return binding.get("value")
    output = node_outputs.get(str(binding.get("node_id")))
    pointer = binding.get("json_pointer")
    if not pointer:
        return output
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except json.JSONDecodeError:
            return None
    return json_pointer(output, str(pointer))


def json_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901 lookup; None when the path does not exist."""
    if pointer in ("", "/"):
        return document
    current = document
    for raw in pointer.lstrip("/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, Mapping) and token in current:
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            return None
    return current


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _non_negative_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _non_blank(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


__all__ = [
    "GATE_KINDS",
    "ON_TIMEOUT",
    "WAIT_KINDS",
    "json_pointer",
    "resolve_binding",
    "wait_spec_problems",
]
