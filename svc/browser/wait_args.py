"""``browser_wait``'s accepted argument shapes, reduced to the canonical one.

Canonical: ``{session_id, condition: {kind, value}, timeout_ms}``. Accepted too:
``wait_for``/``waitFor`` for ``condition`` (inner ``type`` for ``kind``, and
``selector``/``text``/``url`` for ``value``); ``sessionId``, ``timeoutMs``; top-level
``kind``/``type`` plus ``value``; top-level ``selector``, ``text`` or ``url``, from
which the kind is inferred (in that order).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_INFERRED = ("selector", "text", "url")


def condition_of(source: Mapping[str, Any]) -> dict[str, Any] | None:
    kind = source.get("kind") or source.get("type")
    if not isinstance(kind, str) or not kind.strip():
        kind = next((k for k in _INFERRED if _filled(source.get(k))), None)
    if kind is None:
        return None
    kind = kind.strip()
    value = source.get("value")
    if not _filled(value):
        value = source.get(kind) if kind in _INFERRED else None
    condition: dict[str, Any] = {"kind": kind}
    if _filled(value):
        condition["value"] = value
    return condition


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def canonical_wait_args(args: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    session_id = args.get("session_id", args.get("sessionId"))
    if session_id is not None:
        result["session_id"] = session_id
    timeout = args.get("timeout_ms", args.get("timeoutMs"))
    if timeout is not None:
        result["timeout_ms"] = timeout
    nested = next(
        (args[k] for k in ("condition", "wait_for", "waitFor") if isinstance(args.get(k), Mapping)),
        None,
    )
    condition = condition_of(nested) if nested is not None else condition_of(args)
    if condition is not None:
        result["condition"] = condition
    return result
