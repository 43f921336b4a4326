"""Log source tailing (reference §1.19): offsets persisted, rotation and truncation,
bounded bytes and candidates per poll, per-fingerprint cooldown.

Each poll reads at most ``max_bytes_per_poll`` bytes from the stored offset, keeps a
trailing partial line for the next poll, and when more candidates appear than
``max_candidates_per_poll`` stops after the last one processed (the rest are read
again next time). A changed inode or a file shorter than the offset starts over at 0.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import attrs
import trio

from .config import LogSource, Project, source_binding
from .config_validation import resolve_log_path
from .errors import bad_request, not_found
from .fingerprints import log_fingerprint, sha256_hex
from .intake import prepare
from .log_parser import Candidate, Line, parse
from .records import LogSourceState
from .redaction import profile_name, redact_text

if TYPE_CHECKING:
    from .service import IncidentService

COOLDOWN_KEEP_MS = 86_400_000
COOLDOWN_MAX_KEYS = 500


def _read(path: str, offset: int, limit: int) -> tuple[int, int, bytes] | None:
    try:
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            size = stat.st_size
            start = 0 if offset > size else offset
            handle.seek(start)
            return stat.st_ino, size, handle.read(min(limit, max(0, size - start)))
    except FileNotFoundError:
        return None


def _stat(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_size


def _split(data: bytes, base: int) -> tuple[list[Line], bytes]:
    lines: list[Line] = []
    pos = 0
    while True:
        newline = data.find(b"\n", pos)
        if newline < 0:
            break
        text = data[pos:newline].decode("utf-8", "replace").rstrip("\r")
        lines.append(Line(text, base + pos, base + newline + 1))
        pos = newline + 1
    return lines, data[pos:]


def _find(service: IncidentService, project_id: str, source_id: str) -> tuple[Project, LogSource]:
    project = service.config.project(project_id)
    source = project.log_source(source_id) if project else None
    if project is None or source is None:
        raise not_found("LOG_SOURCE_NOT_FOUND", f"log source `{project_id}/{source_id}` not found")
    return project, source


async def poll_due_sources(service: IncidentService) -> None:
    config = service.config
    if not config.enabled or config.paused:
        return
    now = service.now_ms()
    for project in config.monitored_projects:
        if not project.enabled or project.paused:
            continue
        for source in project.log_sources:
            if not source.enabled or source.paused:
                continue
            state = await service.log_states.get(project.project_id, source.source_id)
            due = (
                state is None
                or state.last_poll_at_ms is None
                or (now - state.last_poll_at_ms >= source.watch_interval_seconds * 1000)
            )
            if due:
                await poll_source(service, project, source)


async def poll_source(service: IncidentService, project: Project, source: LogSource) -> int:
    """One poll of one source; returns the number of drafts submitted."""
    now = service.now_ms()
    path = str(resolve_log_path(project.workspace_root or "", source.path))
    state = await service.log_states.get(project.project_id, source.source_id) or LogSourceState(
        project.project_id, source.source_id, path=path
    )
    state = attrs.evolve(state, path=path, last_poll_at_ms=now, updated_at_ms=now)
    stat = await trio.to_thread.run_sync(_stat, path)
    if stat is None:
        await service.log_states.save(
            attrs.evolve(
                state,
                last_error="log file not found",
                consecutive_errors=state.consecutive_errors + 1,
            )
        )
        return 0
    inode, size = stat
    if state.inode is None and state.positioned_at_ms is None and source.start_position == "end":
        await service.log_states.save(
            attrs.evolve(
                state,
                inode=inode,
                offset=size,
                positioned_at_ms=now,
                last_error=None,
                consecutive_errors=0,
            )
        )
        return 0
    if (state.inode is not None and inode != state.inode) or size < state.offset:
        # rotated or truncated: start over, the partial line belonged to the old file
        state = attrs.evolve(state, offset=0, partial_line=None, partial_line_offset_start=None)
    read = await trio.to_thread.run_sync(_read, path, state.offset, source.max_bytes_per_poll)
    if read is None:
        return 0
    inode, size, data = read
    partial = (state.partial_line or "").encode()
    base = state.partial_line_offset_start if state.partial_line else state.offset
    lines, rest = _split(partial + data, base if base is not None else state.offset)
    candidates = parse(lines, source.format, source.minimum_level)
    offset = state.offset + len(data)
    new_partial: str | None = rest.decode("utf-8", "replace") if rest else None
    partial_start = offset - len(rest) if rest else None
    if len(candidates) > source.max_candidates_per_poll:
        candidates = candidates[: source.max_candidates_per_poll]
        offset, new_partial, partial_start = candidates[-1].end, None, None
    recent = {fp: at for fp, at in state.recent_fingerprints.items() if now - at < COOLDOWN_KEEP_MS}
    submitted = 0
    for candidate in candidates:
        fingerprint = log_fingerprint(
            project.project_id, source.source_id, candidate.event, list(candidate.lines)
        )
        seen = recent.get(fingerprint)
        if seen is not None and now - seen < source.fingerprint_cooldown_ms:
            continue
        recent[fingerprint] = now
        await submit(service, project, source, candidate, fingerprint, inode, path)
        submitted += 1
    if len(recent) > COOLDOWN_MAX_KEYS:
        recent = dict(sorted(recent.items(), key=lambda kv: kv[1])[-COOLDOWN_MAX_KEYS:])
    await service.log_states.save(
        attrs.evolve(
            state,
            inode=inode,
            offset=offset,
            partial_line=new_partial,
            partial_line_offset_start=partial_start,
            recent_fingerprints=recent,
            last_error=None,
            consecutive_errors=0,
            total_bytes_read=state.total_bytes_read + len(data),
            total_candidates=state.total_candidates + len(candidates),
            total_submitted=state.total_submitted + submitted,
            last_candidate_at_ms=now if candidates else state.last_candidate_at_ms,
            last_submitted_at_ms=now if submitted else state.last_submitted_at_ms,
        )
    )
    return submitted


async def submit(
    service: IncidentService,
    project: Project,
    source: LogSource,
    candidate: Candidate,
    fingerprint: str,
    inode: int,
    path: str,
) -> dict[str, Any]:
    binding = source_binding(project, source)
    profile = profile_name(
        binding.redaction_profile or service.config.safety_defaults.redaction_profile
    )
    excerpt = [redact_text(line, profile) for line in candidate.lines[:50]]
    first = excerpt[0] if excerpt else ""
    title = f"{project.name} reported {first[:100]}{'...' if len(first) > 100 else ''}"
    digest = sha256_hex([project.project_id, source.source_id, fingerprint, str(candidate.start)])
    evidence_name = f"{digest[:16]}-{candidate.start}.json"
    evidence_dir = service.state_dir / "evidence" / project.project_id / source.source_id
    evidence = {
        "schema_version": 1,
        "offset_start": candidate.start,
        "offset_end": candidate.end,
        "inode": inode,
        "level": candidate.level,
        "event": candidate.event,
        "fingerprint": fingerprint,
        "title": title,
        "excerpt": excerpt,
    }
    await trio.to_thread.run_sync(_write_evidence, evidence_dir, evidence_name, evidence)
    report = {
        "title": title,
        "detail": f"Detected {candidate.level} log candidate in {source.path} at byte offsets "
        f"{candidate.start}-{candidate.end}.",
        "source": f"incident_monitor.log.{source.source_id}",
        "event": candidate.event,
        "level": candidate.level,
        "component": candidate.component,
        "file_name": source.path,
        "excerpt": excerpt,
        "fingerprint": fingerprint,
        "confidence": "high",
        "risk_level": "medium",
        "evidence_refs": [
            f"svc://incident-monitor/{project.project_id}/evidence/{source.source_id}/"
            f"{evidence_name}"
        ],
    }
    trusted = {
        **binding.report_fields(),
        "repo": project.repo or service.config.repo,
        "workspace_root": project.workspace_root,
    }
    fields = prepare(service.config, report, trusted_binding=trusted)
    draft, incident, _ = await service.record_failure(
        fields,
        event_type=candidate.event,
        event_payload={
            "project_id": project.project_id,
            "source_id": source.source_id,
            "log_path": path,
            "offset_start": candidate.start,
            "offset_end": candidate.end,
            "inode": inode,
            "evidence_artifact": evidence_name,
            "detected_at_ms": service.now_ms(),
        },
        project=project,
    )
    return {
        "incident": incident.to_wire() if incident else None,
        "draft": draft.to_wire() if draft else None,
    }


def _write_evidence(directory: Any, name: str, evidence: dict[str, Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(json.dumps(evidence, ensure_ascii=False))


async def reset_offset(service: IncidentService, project_id: str, source_id: str) -> dict[str, Any]:
    project, source = _find(service, project_id, source_id)
    path = str(resolve_log_path(project.workspace_root or "", source.path))
    stat = await trio.to_thread.run_sync(_stat, path)
    now = service.now_ms()
    state = await service.log_states.get(project_id, source_id) or LogSourceState(
        project_id, source_id, path=path
    )
    state = attrs.evolve(
        state,
        offset=0,
        partial_line=None,
        partial_line_offset_start=None,
        recent_fingerprints={},
        inode=stat[0] if stat else None,
        positioned_at_ms=now,
        updated_at_ms=now,
    )
    await service.log_states.save(state)
    return {"project_id": project_id, "source_id": source_id, "state": state.to_wire()}


async def replay_latest(
    service: IncidentService, project_id: str, source_id: str
) -> dict[str, Any]:
    project, source = _find(service, project_id, source_id)
    incident = await service.drafts.latest_log_incident(project_id, source_id)
    if incident is None:
        raise not_found("LOG_SOURCE_REPLAY_NOT_FOUND", "no log-source incident to replay")
    payload = incident.get("event_payload", {})
    start, end = int(payload["offset_start"]), int(payload["offset_end"])
    path = str(resolve_log_path(project.workspace_root or "", source.path))
    read = await trio.to_thread.run_sync(_read, path, start, end - start)
    if read is None or read[1] < end:
        raise bad_request(
            "LOG_SOURCE_REPLAY_FAILED",
            "latest log-source incident offsets exceed current log file size",
        )
    lines, _ = _split(read[2], start)
    match = next(
        (
            c
            for c in parse(lines, source.format, source.minimum_level)
            if c.start == start and c.end == end
        ),
        None,
    )
    if match is None:
        raise bad_request("LOG_SOURCE_REPLAY_FAILED", "the byte range no longer holds a candidate")
    fingerprint = log_fingerprint(project_id, source_id, match.event, list(match.lines))
    result = await submit(service, project, source, match, fingerprint, read[0], path)
    return {"project_id": project_id, "source_id": source_id, **result}
