"""The incident monitor configuration (reference §1.2 to §1.6): records and defaults.

The whole object is replaced on every save (``PATCH /config/incident-monitor``); an
omitted field takes its default. Validation lives in :mod:`.config_validation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..convert import structure, unstructure

LEGACY_DESTINATION_ID = "legacy-github"
DESTINATION_KINDS = (
    "github_issue",
    "linear_issue",
    "webhook",
    "telemetry",
    "mcp_tool",
    "internal_memory",
)
APPROVAL_POLICIES = ("inherit", "always", "high_risk", "never")
REPORT_SCOPE = "incident_monitor:report"


@attrs.frozen
class SafetyDefaults:
    require_approval_for_high_risk: bool = True
    redact_secrets: bool = True
    block_unready_destinations: bool = True
    block_unready_sources: bool = False
    retention_days: int | None = None
    minimum_risk_level: str | None = None
    redaction_profile: str = "default"
    """The rule set applied to reports that name none (see :mod:`.redaction`)."""


@attrs.frozen
class Reassessment:
    cadence_ms: int = 604_800_000
    overdue_grace_ms: int = 86_400_000
    change_triggers_enabled: bool = True


@attrs.frozen
class Destination:
    destination_id: str
    name: str
    kind: str = "github_issue"
    enabled: bool = True
    require_approval: bool = False
    repo: str | None = None
    mcp_server: str | None = None
    linear_team: str | None = None
    linear_project: str | None = None
    webhook_url: str | None = None
    webhook_secret_ref: str | None = None
    telemetry_path: str | None = None
    mcp_tool: str | None = None
    memory_category: str | None = None
    route_tags: list[str] = attrs.field(factory=list)
    config: dict[str, Any] | None = None

    def option(self, *names: str) -> Any:
        """The first of ``names`` present in ``config`` (the reference's aliases)."""
        for name in names:
            if self.config and self.config.get(name) is not None:
                return self.config[name]
        return None


@attrs.frozen
class Route:
    name: str
    route_id: str | None = None
    enabled: bool = True
    priority: int = 0
    destination_ids: list[str] = attrs.field(factory=list)
    approval_policy: str = "inherit"
    match_event_types: list[str] = attrs.field(factory=list)
    match_sources: list[str] = attrs.field(factory=list)
    match_components: list[str] = attrs.field(factory=list)
    match_risk_levels: list[str] = attrs.field(factory=list)
    match_risk_categories: list[str] = attrs.field(factory=list)
    match_confidence: list[str] = attrs.field(factory=list)
    match_expected_destinations: list[str] = attrs.field(factory=list)
    match_project_ids: list[str] = attrs.field(factory=list)
    match_log_source_ids: list[str] = attrs.field(factory=list)
    match_route_tags: list[str] = attrs.field(factory=list)
    match_source_kinds: list[str] = attrs.field(factory=list)
    match_tenant_ids: list[str] = attrs.field(factory=list)
    match_workspace_ids: list[str] = attrs.field(factory=list)
    match_event_schema_versions: list[str] = attrs.field(factory=list)


@attrs.frozen
class Binding:
    """Fields a project and a log source share (merged by :func:`source_binding`)."""

    allowed_destination_ids: list[str] = attrs.field(factory=list)
    default_destination_ids: list[str] = attrs.field(factory=list)
    default_route_tags: list[str] = attrs.field(factory=list)
    tenant_id: str | None = None
    workspace_id: str | None = None
    event_schema_version: str | None = None
    approval_policy: str = "inherit"
    redaction_profile: str | None = None
    retention_profile: str | None = None
    data_readiness: dict[str, Any] = attrs.field(factory=dict)
    source_kind: str | None = None


@attrs.frozen
class LogSource(Binding):
    source_id: str = ""
    path: str = ""
    format: str = "auto"
    minimum_level: str = "error"
    watch_interval_seconds: int = 60
    enabled: bool = True
    paused: bool = False
    start_position: str = "end"
    max_bytes_per_poll: int = 262_144
    max_candidates_per_poll: int = 20
    fingerprint_cooldown_ms: int = 3_600_000


@attrs.frozen
class Project(Binding):
    project_id: str = ""
    name: str = ""
    enabled: bool = True
    paused: bool = False
    repo: str | None = None
    workspace_root: str | None = None
    mcp_server: str | None = None
    model_policy: dict[str, Any] | None = None
    auto_create_new_issues: bool = True
    require_approval_for_new_issues: bool = False
    auto_comment_on_matched_open_issues: bool = True
    log_sources: list[LogSource] = attrs.field(factory=list)
    source_kind: str | None = "customer_system"

    def log_source(self, source_id: str) -> LogSource | None:
        return next((s for s in self.log_sources if s.source_id == source_id), None)


@attrs.frozen
class MonitorConfig:
    enabled: bool = False
    paused: bool = False
    workspace_root: str | None = None
    repo: str | None = None
    mcp_server: str | None = None
    provider_preference: str = "auto"
    model_policy: dict[str, Any] | None = None
    auto_create_new_issues: bool = True
    require_approval_for_new_issues: bool = False
    auto_comment_on_matched_open_issues: bool = True
    label_mode: str = "reporter_only"
    triage_timeout_ms: int | None = 1_800_000
    monitored_projects: list[Project] = attrs.field(factory=list)
    destinations: list[Destination] = attrs.field(factory=list)
    routes: list[Route] = attrs.field(factory=list)
    default_destination_ids: list[str] = attrs.field(factory=list)
    safety_defaults: SafetyDefaults = attrs.field(factory=SafetyDefaults)
    reassessment: Reassessment = attrs.field(factory=Reassessment)
    updated_at_ms: int | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = unstructure(self)
        return wire

    def project(self, project_id: str | None) -> Project | None:
        if not project_id:
            return None
        return next((p for p in self.monitored_projects if p.project_id == project_id), None)

    def effective_destinations(self) -> list[Destination]:
        """The configured destinations, or the synthesized legacy GitHub one when none are."""
        if self.destinations:
            return list(self.destinations)
        return [
            Destination(
                destination_id=LEGACY_DESTINATION_ID,
                name="GitHub (default Incident Monitor)",
                kind="github_issue",
                enabled=self.enabled,
                require_approval=self.require_approval_for_new_issues,
                repo=self.repo,
                mcp_server=self.mcp_server,
                route_tags=["legacy_github"],
            )
        ]

    def destination(self, destination_id: str) -> Destination | None:
        return next(
            (d for d in self.effective_destinations() if d.destination_id == destination_id), None
        )

    def effective_default_destination_ids(self) -> list[str]:
        explicit = [d.strip() for d in self.default_destination_ids if d.strip()]
        if explicit:
            return explicit
        return [LEGACY_DESTINATION_ID] if not self.destinations else []


def parse_config(data: Mapping[str, Any]) -> MonitorConfig:
    """Structure a config object (ValidationFailed names the field)."""
    return structure(MonitorConfig, data, what="incident_monitor")


def _first(values: list[str], fallback: list[str]) -> list[str]:
    return list(values) if values else list(fallback)


def _dedupe(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


@attrs.frozen
class SourceBinding:
    """What a report from (project, log source) carries (reference §1.6, binding merge)."""

    project_id: str
    source_id: str | None
    allowed_destination_ids: list[str]
    default_destination_ids: list[str]
    route_tags: list[str]
    approval_policy: str
    data_readiness: dict[str, Any]
    source_kind: str | None
    tenant_id: str | None
    workspace_id: str | None
    event_schema_version: str | None
    redaction_profile: str | None
    retention_profile: str | None

    def report_fields(self) -> dict[str, Any]:
        return {
            "project_id": self.project_id,
            "log_source_id": self.source_id,
            "source_kind": self.source_kind,
            "allowed_destination_ids": list(self.allowed_destination_ids),
            "default_destination_ids": list(self.default_destination_ids),
            "route_tags": list(self.route_tags),
            "tenant_id": self.tenant_id,
            "workspace_id": self.workspace_id,
            "event_schema_version": self.event_schema_version,
            "source_approval_policy": self.approval_policy,
            "redaction_profile": self.redaction_profile,
            "retention_profile": self.retention_profile,
        }


def source_binding(project: Project, source: LogSource | None) -> SourceBinding:
    if source is None:
        allowed = list(project.allowed_destination_ids)
        defaults = list(project.default_destination_ids)
        tags = _dedupe(list(project.default_route_tags))
        return SourceBinding(
            project_id=project.project_id,
            source_id=None,
            allowed_destination_ids=allowed,
            default_destination_ids=defaults,
            route_tags=tags,
            approval_policy=project.approval_policy,
            data_readiness=dict(project.data_readiness),
            source_kind=project.source_kind,
            tenant_id=project.tenant_id,
            workspace_id=project.workspace_id,
            event_schema_version=project.event_schema_version,
            redaction_profile=project.redaction_profile,
            retention_profile=project.retention_profile,
        )
    p_allowed, s_allowed = project.allowed_destination_ids, source.allowed_destination_ids
    if not p_allowed:
        allowed = list(s_allowed)
    elif not s_allowed:
        allowed = list(p_allowed)
    else:
        allowed = [d for d in s_allowed if d in p_allowed]
    readiness = dict(project.data_readiness)
    readiness.update({k: v for k, v in source.data_readiness.items() if v is not None})
    return SourceBinding(
        project_id=project.project_id,
        source_id=source.source_id,
        allowed_destination_ids=allowed,
        default_destination_ids=_first(
            source.default_destination_ids, project.default_destination_ids
        ),
        route_tags=_dedupe([*project.default_route_tags, *source.default_route_tags]),
        approval_policy=(
            source.approval_policy
            if source.approval_policy != "inherit"
            else project.approval_policy
        ),
        data_readiness=readiness,
        source_kind=source.source_kind or project.source_kind,
        tenant_id=source.tenant_id or project.tenant_id,
        workspace_id=source.workspace_id or project.workspace_id,
        event_schema_version=source.event_schema_version or project.event_schema_version,
        redaction_profile=source.redaction_profile or project.redaction_profile,
        retention_profile=source.retention_profile or project.retention_profile,
    )
