"""Deterministic identifiers: the same request always names the same goal, run or handoff.

``H(value)`` is the first 32 hex digits of the SHA-256 of the value's canonical JSON
(sorted keys, compact separators). Retrying a start, a transition or a wait resolution
with the same idempotency key therefore lands on the same records instead of creating
duplicates, even across a restart.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GOAL_PREFIX = "goal/"
"""A goal's actor is named ``goal/<goal_id>``."""


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def digest(value: Any) -> str:
    """Full SHA-256 hex digest of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def short_hash(value: Any) -> str:
    return digest(value)[:32]


def goal_id_for(scope: str, idempotency_key: str) -> str:
    return "goal-" + short_hash(
        {"idempotency_key": idempotency_key, "kind": "goal", "scope": scope}
    )


def root_run_id_for(goal_id: str, idempotency_key: str) -> str:
    return "automation-v2-run-" + short_hash(
        {
            "idempotency_key": "root:" + idempotency_key,
            "kind": "automation-v2-run",
            "scope": goal_id,
        }
    )


def handoff_id_for(goal_id: str, idempotency_key: str) -> str:
    return "handoff-" + short_hash(
        {"goal_id": goal_id, "idempotency_key": idempotency_key, "kind": "handoff"}
    )


def downstream_run_id_for(goal_id: str, idempotency_key: str) -> str:
    return "automation-v2-run-" + short_hash(
        {"goal_id": goal_id, "idempotency_key": idempotency_key, "kind": "automation-v2-run"}
    )


def wait_id_for(run_id: str, node_id: str) -> str:
    return "wait-" + short_hash({"kind": "wait", "node_id": node_id, "run_id": run_id})


def draft_id_for(scope: str, idempotency_key: str) -> str:
    return "orch-" + short_hash(
        {"idempotency_key": idempotency_key, "kind": "orchestration", "scope": scope}
    )


__all__ = [
    "GOAL_PREFIX",
    "canonical_json",
    "digest",
    "downstream_run_id_for",
    "draft_id_for",
    "goal_id_for",
    "handoff_id_for",
    "root_run_id_for",
    "short_hash",
    "wait_id_for",
]
