"""Stable fingerprints (reference §1.11), and the digests and keys built the same way.

The reference fingerprinted reports with its toolchain's default hasher, which changes
between compiler versions; here every fingerprint is SHA-256 over the parts separated
by an ASCII unit separator, so the same failure has the same fingerprint on every
build and every machine.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

_SEPARATOR = "\x1f"
_RUN_ID = re.compile(r"automation-v2-run-[0-9a-f-]{8,}", re.IGNORECASE)
_UUID = re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.I)


def sha256_hex(parts: Iterable[str | None]) -> str:
    material = _SEPARATOR.join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def report_fingerprint(
    *,
    repo: str | None,
    title: str | None,
    detail: str | None,
    source: str | None,
    run_id: str | None,
    session_id: str | None,
    correlation_id: str | None,
) -> str:
    """16 hex digits over what identifies a reported failure."""
    return sha256_hex([repo, title, detail, source, run_id, session_id, correlation_id])[:16]


def normalize_reason(reason: str) -> str:
    """Run ids and UUIDs replaced, so two runs failing the same way share a fingerprint."""
    return _UUID.sub("UUID", _RUN_ID.sub("automation-v2-run-RUNID", reason)).strip()


def runtime_fingerprint(
    *,
    repo: str | None,
    workspace_root: str | None,
    event_type: str,
    reason: str,
    workflow_id: str | None = None,
    task_id: str | None = None,
    node_id: str | None = None,
    component: str | None = None,
) -> str:
    return sha256_hex(
        [
            repo,
            workspace_root,
            event_type,
            normalize_reason(reason),
            workflow_id,
            task_id,
            node_id,
            component,
        ]
    )


def _normalize_line(line: str) -> str:
    return " ".join(
        "<var>" if any(c.isdigit() for c in token) or len(token) > 40 else token
        for token in line.split()
    )


def log_fingerprint(project_id: str, source_id: str, event: str, lines: list[str]) -> str:
    first = _normalize_line(lines[0]) if lines else ""
    second = _normalize_line(lines[1]) if len(lines) > 1 else ""
    return f"{project_id}:{source_id}:{event}:{sha256_hex([first, second])[:16]}"


def evidence_digest(repo: str, fingerprint: str, title: str | None, detail: str | None) -> str:
    return sha256_hex([repo, fingerprint, title or "", detail or ""])


def idempotency_key(
    destination_id: str, kind: str, target_ref: str, fingerprint: str, operation: str, digest: str
) -> str:
    return sha256_hex([destination_id, kind, target_ref, fingerprint, operation, digest])
