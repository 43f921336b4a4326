"""Save-time validation of the incident monitor config (reference §1.2), plus what the
reference left unchecked: destination kinds, approval policies and redaction profiles."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import attrs

from .config import (
    APPROVAL_POLICIES,
    DESTINATION_KINDS,
    Binding,
    LogSource,
    MonitorConfig,
    Project,
)
from .errors import ConfigInvalid
from .redaction import PROFILES

_SLUG = re.compile(r"^[A-Za-z0-9._-]+$")


def valid_repo(repo: str | None) -> bool:
    if not repo:
        return False
    owner, sep, name = repo.partition("/")
    return bool(sep and owner.strip() and name.strip() and "/" not in name)


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def _blank_to_none(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value or None


def validate_config(
    config: MonitorConfig, *, server_exists: Callable[[str], bool]
) -> MonitorConfig:
    """The config as it will be saved (trimmed, numerics clamped) or :class:`ConfigInvalid`."""
    repo = _blank_to_none(config.repo)
    if repo and not valid_repo(repo):
        raise ConfigInvalid("repo must be in owner/repo format", field="repo")
    server = _blank_to_none(config.mcp_server)
    if server and not server_exists(server):
        raise ConfigInvalid(f"mcp_server `{server}` is not configured", field="mcp_server")
    if config.provider_preference not in ("auto", "official_github", "composio", "arcade"):
        raise ConfigInvalid("unknown provider_preference", field="provider_preference")
    if config.triage_timeout_ms is not None and config.triage_timeout_ms < 1:
        raise ConfigInvalid("triage_timeout_ms must be positive", field="triage_timeout_ms")
    safety = config.safety_defaults
    if safety.redaction_profile not in PROFILES:
        raise ConfigInvalid(
            f"unknown redaction_profile `{safety.redaction_profile}` "
            f"(one of {', '.join(PROFILES)})",
            field="safety_defaults.redaction_profile",
        )
    if safety.retention_days is not None and safety.retention_days < 0:
        raise ConfigInvalid("retention_days must not be negative", field="safety_defaults")
    seen: set[str] = set()
    for i, destination in enumerate(config.destinations):
        where = f"destinations[{i}]"
        if not destination.destination_id.strip() or not destination.name.strip():
            raise ConfigInvalid("destination_id and name are required", field=where)
        if destination.destination_id in seen:
            raise ConfigInvalid(
                f"destination `{destination.destination_id}` is declared twice", field=where
            )
        seen.add(destination.destination_id)
        if destination.kind not in DESTINATION_KINDS:
            raise ConfigInvalid(
                f"unknown destination kind `{destination.kind}`", field=f"{where}.kind"
            )
    for i, route in enumerate(config.routes):
        if route.approval_policy not in APPROVAL_POLICIES:
            raise ConfigInvalid(
                f"unknown approval_policy `{route.approval_policy}`",
                field=f"routes[{i}].approval_policy",
            )
    effective = {d.destination_id for d in config.effective_destinations()}
    for d in config.effective_default_destination_ids():
        if d not in effective:
            raise ConfigInvalid(
                f"default destination `{d}` is not configured", field="default_destination_ids"
            )
    projects = [
        _validate_project(p, i, effective, server_exists)
        for i, p in enumerate(config.monitored_projects)
    ]
    ids = [p.project_id for p in projects]
    if len(ids) != len(set(ids)):
        raise ConfigInvalid("project ids must be unique", field="monitored_projects")
    return attrs.evolve(
        config,
        repo=repo,
        mcp_server=server,
        workspace_root=_blank_to_none(config.workspace_root),
        monitored_projects=projects,
    )


def _validate_binding(
    binding: Binding, where: str, effective: set[str], server_exists: Callable[[str], bool]
) -> None:
    for name in ("allowed_destination_ids", "default_destination_ids"):
        for d in getattr(binding, name):
            if d not in effective:
                raise ConfigInvalid(f"destination `{d}` is not configured", field=f"{where}.{name}")
    allowed = binding.allowed_destination_ids
    if allowed and any(d not in allowed for d in binding.default_destination_ids):
        raise ConfigInvalid(
            "default destinations must be inside the allowed list",
            field=f"{where}.default_destination_ids",
        )
    if binding.approval_policy not in APPROVAL_POLICIES:
        raise ConfigInvalid("unknown approval_policy", field=f"{where}.approval_policy")
    if binding.redaction_profile is not None and binding.redaction_profile not in PROFILES:
        raise ConfigInvalid(
            f"unknown redaction_profile `{binding.redaction_profile}`",
            field=f"{where}.redaction_profile",
        )


def _validate_project(
    project: Project, index: int, effective: set[str], server_exists: Callable[[str], bool]
) -> Project:
    where = f"monitored_projects[{index}]"
    if not _SLUG.match(project.project_id):
        raise ConfigInvalid("project_id must be slug-like", field=f"{where}.project_id")
    if not project.name.strip():
        raise ConfigInvalid("project name is required", field=f"{where}.name")
    if project.repo and not valid_repo(project.repo):
        raise ConfigInvalid("project repo must be owner/repo", field=f"{where}.repo")
    root = _blank_to_none(project.workspace_root)
    if root is not None and not Path(root).is_absolute():
        raise ConfigInvalid("workspace_root must be absolute", field=f"{where}.workspace_root")
    if project.mcp_server and not server_exists(project.mcp_server):
        raise ConfigInvalid("mcp_server is not configured", field=f"{where}.mcp_server")
    _validate_binding(project, where, effective, server_exists)
    sources: list[LogSource] = []
    for j, source in enumerate(project.log_sources):
        swhere = f"{where}.log_sources[{j}]"
        if not _SLUG.match(source.source_id):
            raise ConfigInvalid("source_id must be slug-like", field=f"{swhere}.source_id")
        if not source.path.strip():
            raise ConfigInvalid("log source path is required", field=f"{swhere}.path")
        if source.format not in ("auto", "json", "plaintext"):
            raise ConfigInvalid("format must be auto, json or plaintext", field=f"{swhere}.format")
        if source.minimum_level not in ("error", "warn"):
            raise ConfigInvalid("minimum_level must be error or warn", field=swhere)
        if source.start_position not in ("end", "beginning"):
            raise ConfigInvalid("start_position must be end or beginning", field=swhere)
        if root is None:
            raise ConfigInvalid(
                "a project with log sources needs a workspace_root", field=f"{where}.workspace_root"
            )
        if not _inside(root, source.path):
            raise ConfigInvalid("log source path escapes workspace_root", field=f"{swhere}.path")
        _validate_binding(source, swhere, effective, server_exists)
        sources.append(
            attrs.evolve(
                source,
                watch_interval_seconds=_clamp(source.watch_interval_seconds, 1, 86_400),
                max_bytes_per_poll=_clamp(source.max_bytes_per_poll, 1024, 10_485_760),
                max_candidates_per_poll=_clamp(source.max_candidates_per_poll, 1, 200),
                fingerprint_cooldown_ms=max(0, source.fingerprint_cooldown_ms),
            )
        )
    if len({s.source_id for s in sources}) != len(sources):
        raise ConfigInvalid("log source ids must be unique", field=f"{where}.log_sources")
    return attrs.evolve(project, workspace_root=root, log_sources=sources)


def resolve_log_path(root: str, path: str) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else Path(root) / candidate


def _inside(root: str, path: str) -> bool:
    """The nearest existing ancestor of the path, resolved, lies inside the resolved root."""
    target = resolve_log_path(root, path)
    probe = target
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    try:
        resolved_root = Path(root).resolve()
        # normpath folds `..` left in the part that does not exist yet
        resolved = Path(os.path.normpath(probe.resolve() / target.relative_to(probe)))
    except (OSError, ValueError):
        return False
    return resolved == resolved_root or resolved_root in resolved.parents
