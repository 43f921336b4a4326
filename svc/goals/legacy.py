"""Importing legacy file handoff envelopes (SPEC §9), idempotently, in one transaction.

Before goals moved handoffs through the store, workflows handed artifacts to each other
as JSON envelopes under ``<workspace>/shared/handoffs/{inbox,approved,archived}/``. At
every start-up those files are read (never modified: they stay as backups) and imported
into ``goal_legacy_handoffs``; a malformed or foreign envelope is quarantined with the
reason instead, and the file is left where it is. Re-running the import changes nothing
unless the files changed; a fixed file leaves quarantine on the next start.

An envelope: ``{handoff_id, source_automation_id, source_run_id?, source_node_id?,
target_automation_id, artifact_type, created_at_ms?, content_path?, content_digest?,
metadata?, consumed_by_run_id?, consumed_by_automation_id?, consumed_at_ms?}``. Imported
status: ``archived`` when consumed, ``approved`` under an ``approved`` directory, else
``inbox``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from .legacy_repository import LegacyHandoffRepository


LEGACY_DIR = Path("shared") / "handoffs"
SOURCE_KIND = "legacy_workspace_handoffs"


@attrs.frozen
class Envelope:
    handoff_id: str
    source_path: str
    source_digest: str
    status: str
    record: dict[str, Any]


@attrs.frozen
class Quarantined:
    source_path: str
    source_digest: str | None
    error: str


@attrs.frozen
class LegacyReport:
    handoffs: int = 0
    quarantined_handoffs: int = 0
    files: int = 0

    def to_wire(self) -> dict[str, int]:
        return attrs.asdict(self)


def scan(
    root: Path, known_automations: Collection[str]
) -> tuple[list[Envelope], list[Quarantined], int]:
    """Every ``*.json`` under ``root`` (sorted), validated.

    Returns the envelopes, the quarantined files and the number of files.
    """
    if not root.is_dir():
        return [], [], 0
    files = sorted(p for p in root.rglob("*.json") if p.is_file())
    envelopes: dict[str, Envelope] = {}
    quarantined: list[Quarantined] = []
    for path in files:
        relative = path.relative_to(root).as_posix()
        try:
            raw = path.read_bytes()
        except OSError as exc:
            quarantined.append(
                Quarantined(relative, None, f"unreadable legacy handoff: {exc.strerror or exc}")
            )
            continue
        file_digest = hashlib.sha256(raw).hexdigest()
        try:
            data = json.loads(raw)
            error = _problem(data, known_automations)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            error = f"invalid legacy handoff: {exc}"
        if error is not None:
            quarantined.append(Quarantined(relative, file_digest, error))
            continue
        record = {k: v for k, v in data.items() if v is not None}
        consumed = data.get("consumed_by_run_id") or data.get("consumed_at_ms")
        status = (
            "archived"
            if consumed
            else "approved"
            if "approved" in PurePosixPath(relative).parts[:-1]
            else "inbox"
        )
        envelope = Envelope(data["handoff_id"], relative, _canonical_digest(record), status, record)
        seen = envelopes.get(envelope.handoff_id)
        if seen is None:
            envelopes[envelope.handoff_id] = envelope
        elif seen.source_digest != envelope.source_digest:
            quarantined.append(
                Quarantined(
                    relative,
                    file_digest,
                    f"conflicting legacy handoff: {envelope.handoff_id} differs from "
                    f"{seen.source_path}",
                )
            )
        # An identical copy of an envelope imports once.
    return list(envelopes.values()), quarantined, len(files)


def _problem(data: Any, known: Collection[str]) -> str | None:
    if not isinstance(data, dict):
        return "invalid legacy handoff: the envelope must be a JSON object"
    for name in ("handoff_id", "source_automation_id", "target_automation_id", "artifact_type"):
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            return f"invalid legacy handoff: `{name}` must be a non-blank string"
    path = data.get("content_path")
    if path is not None and (
        not isinstance(path, str)
        or PurePosixPath(path).is_absolute()
        or Path(path).is_absolute()
        or ".." in PurePosixPath(path).parts
    ):
        return (
            "invalid legacy handoff: `content_path` must be relative and stay inside the workspace"
        )
    if data["source_automation_id"] not in known and data["target_automation_id"] not in known:
        return (
            "foreign legacy handoff: neither its source nor its target automation is known "
            "to this runtime"
        )
    return None


def _canonical_digest(record: dict[str, Any]) -> str:
    return hashlib.sha256(
        json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


async def import_legacy_handoffs(
    repo: LegacyHandoffRepository, workspace: Path, known_automations: Collection[str], now_ms: int
) -> LegacyReport:
    """Scan ``<workspace>/shared/handoffs`` and upsert what it holds, all in one transaction."""
    root = workspace / LEGACY_DIR
    envelopes, quarantined, files = scan(root, known_automations)
    if not files:
        return LegacyReport()
    await repo.save_import(SOURCE_KIND, str(root), envelopes, quarantined, now_ms)
    return LegacyReport(handoffs=len(envelopes), quarantined_handoffs=len(quarantined), files=files)


__all__ = [
    "LEGACY_DIR",
    "LegacyReport",
    "import_legacy_handoffs",
    "scan",
]
