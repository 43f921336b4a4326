"""What a ``local_directory`` binding would ingest: the files, and which need review.

Runs on a worker thread. A file needs review when the binding's policy says
every file does (``require_review``) or when its content matches the
credential detectors memory uses before it widens a record's audience
(:func:`svc.memory.scrub_text`: provider keys, access tokens, JSON web tokens,
``password=...`` assignments, private keys, secrets the engine knows).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import attrs


@attrs.frozen
class ScannedFile:
    relative: str
    size: int
    content_hash: str
    reasons: tuple[str, ...] = ()
    """Why it needs review (``review_required``, ``secret_detected``); empty: importable."""
    detectors: tuple[str, ...] = ()
    refused: str | None = None
    """Why it is left out without review (``max_depth_exceeded``, ``unreadable``)."""


def detectors_of(text: str) -> tuple[str, ...]:
    from ..memory import scrub_text

    _, report = scrub_text(text)
    if report.status == "blocked":
        return ("private_key",)
    if report.status == "redacted":
        return ("credential_pattern",)
    return ()


def scan(root: Path, *, require_review: bool, max_depth: int | None) -> list[ScannedFile]:
    """Every file an import of ``root`` covers, with what review it needs."""
    from ..memory import discover

    out: list[ScannedFile] = []
    for entry in discover(root, "directory"):
        if max_depth is not None and entry.relative.count("/") > max_depth:
            out.append(ScannedFile(entry.relative, entry.size, "", refused="max_depth_exceeded"))
            continue
        try:
            raw = entry.path.read_bytes()
        except OSError:
            out.append(ScannedFile(entry.relative, entry.size, "", refused="unreadable"))
            continue
        text = raw.decode("utf-8", errors="replace")
        found = detectors_of(text)
        reasons = (("review_required",) if require_review else ()) + (
            ("secret_detected",) if found else ()
        )
        digest = hashlib.sha256(raw).hexdigest()
        out.append(ScannedFile(entry.relative, len(raw), digest, reasons, found))
    return out


__all__ = ["ScannedFile", "detectors_of", "scan"]
