"""Route matching and preview (reference §1.13), pure over a config and a context.

Better than the reference: every selected destination of the winning match is
delivered (each with its own receipt), not only one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .config import LEGACY_DESTINATION_ID, MonitorConfig, Route

RISK_RANKS = {
    "critical": 5,
    "urgent": 5,
    "severe": 5,
    "high": 4,
    "medium": 3,
    "moderate": 3,
    "low": 2,
    "info": 1,
    "informational": 1,
    "none": 1,
}

# (matcher field, context key, reason word), in the reference's fixed order.
MATCHERS = (
    ("match_event_types", "event_type", "event_type"),
    ("match_sources", "source", "source"),
    ("match_components", "component", "component"),
    ("match_risk_levels", "risk_level", "risk_level"),
    ("match_risk_categories", "risk_category", "risk_category"),
    ("match_confidence", "confidence", "confidence"),
    ("match_expected_destinations", "expected_destination", "expected_destination"),
    ("match_project_ids", "project_id", "project_id"),
    ("match_log_source_ids", "log_source_id", "log_source_id"),
    ("match_source_kinds", "source_kind", "source_kind"),
    ("match_tenant_ids", "tenant_id", "tenant_id"),
    ("match_workspace_ids", "workspace_id", "workspace_id"),
    ("match_event_schema_versions", "event_schema_version", "event_schema_version"),
)
CONTEXT_FIELDS = tuple(key for _, key, _ in MATCHERS)


def risk_rank(level: str | None) -> int:
    return RISK_RANKS.get((level or "").strip().lower(), 0)


def is_high_risk(level: str | None) -> bool:
    return risk_rank(level) >= 4


@attrs.frozen
class RouteContext:
    values: Mapping[str, str | None]
    """Lower-cased scalars by context key (``event_type``, ``source``, ...)."""
    route_tags: tuple[str, ...] = ()
    allowed_destination_ids: tuple[str, ...] = ()
    default_destination_ids: tuple[str, ...] = ()
    source_approval_policy: str | None = None

    def get(self, key: str) -> str | None:
        return self.values.get(key)


def build_context(
    config: MonitorConfig, layers: Sequence[Mapping[str, Any]], *, trusted: bool
) -> RouteContext:
    """Each scalar is the first non-empty value of the layers (explicit, report, draft,
    incident), trimmed and lower-cased; tags are their union. An untrusted context (a bare
    report) gets its binding from the config only."""
    values: dict[str, str | None] = {}
    for key in CONTEXT_FIELDS:
        values[key] = None
        for layer in layers:
            raw = layer.get(key)
            if key == "event_type" and not raw:
                raw = layer.get("event")
            if isinstance(raw, str) and raw.strip():
                values[key] = raw.strip().lower()
                break
    tags: list[str] = []
    allowed: list[str] = []
    defaults: list[str] = []
    policy: str | None = None
    for layer in layers:
        tags.extend(t.strip().lower() for t in layer.get("route_tags") or [] if t.strip())
        if trusted:
            allowed = allowed or list(layer.get("allowed_destination_ids") or [])
            defaults = defaults or list(layer.get("default_destination_ids") or [])
            policy = policy or layer.get("source_approval_policy")
    if not trusted:
        for key in ("source_kind", "tenant_id", "workspace_id", "event_schema_version"):
            values[key] = None
    project = config.project(values.get("project_id"))
    if project is not None:
        from .config import source_binding

        source = project.log_source(values.get("log_source_id") or "")
        binding = source_binding(project, source)
        for key in ("source_kind", "tenant_id", "workspace_id", "event_schema_version"):
            bound = getattr(binding, key)
            if bound and not values.get(key):
                values[key] = bound.lower()
        tags.extend(t.lower() for t in binding.route_tags)
        if binding.allowed_destination_ids:
            allowed = (
                [d for d in allowed if d in binding.allowed_destination_ids]
                if allowed
                else list(binding.allowed_destination_ids)
            )
        defaults = defaults or list(binding.default_destination_ids)
        if policy not in (None, binding.approval_policy) and binding.approval_policy != "always":
            policy = None  # a claimed policy counts only when the binding agrees
        policy = policy or binding.approval_policy
    floor = config.safety_defaults.minimum_risk_level
    if floor and risk_rank(values.get("risk_level")) < risk_rank(floor):
        values["risk_level"] = floor.lower()
    return RouteContext(
        values=values,
        route_tags=tuple(dict.fromkeys(tags)),
        allowed_destination_ids=tuple(allowed),
        default_destination_ids=tuple(defaults),
        source_approval_policy=policy,
    )


def _matches(route: Route, context: RouteContext) -> list[str] | None:
    """The matcher names that matched, or None when one failed."""
    matched: list[str] = []
    for field, key, word in MATCHERS:
        wanted = [w.strip().lower() for w in getattr(route, field) if w.strip()]
        if not wanted:
            continue
        if context.get(key) not in wanted:
            return None
        matched.append(word)
    tags = [t.strip().lower() for t in route.match_route_tags if t.strip()]
    if tags:
        if not set(tags) & set(context.route_tags):
            return None
        matched.append("route_tags")
    return matched


@attrs.frozen
class RouteMatch:
    route_id: str | None
    route_name: str | None
    destination_ids: tuple[str, ...]
    approval_required: bool
    reason: str
    approval_policy: str = "inherit"

    def to_wire(self) -> dict[str, Any]:
        return {
            "route_id": self.route_id,
            "route_name": self.route_name,
            "destination_ids": list(self.destination_ids),
            "approval_required": self.approval_required,
            "reason": self.reason,
        }


def _approval(
    config: MonitorConfig, policy: str, destination_ids: Sequence[str], context: RouteContext
) -> bool:
    destination_requires = any(
        d.require_approval
        for d in (config.destination(i) for i in destination_ids)
        if d is not None and d.destination_id != LEGACY_DESTINATION_ID
    )
    high = is_high_risk(context.get("risk_level"))
    if policy == "inherit":
        policy = context.source_approval_policy or "inherit"
    if policy == "always":
        return True
    if policy == "never":
        return False
    if policy == "high_risk":
        return destination_requires or high
    return (
        config.require_approval_for_new_issues
        or destination_requires
        or (config.safety_defaults.require_approval_for_high_risk and high)
    )


def match_routes(
    config: MonitorConfig, context: RouteContext, requested: Sequence[str] = ()
) -> list[RouteMatch]:
    defaults = list(context.default_destination_ids) or config.effective_default_destination_ids()
    if requested:
        ids = tuple(dict.fromkeys(requested))
        return [
            RouteMatch(
                None,
                None,
                ids,
                _approval(config, "inherit", ids, context),
                "requested_destination_override",
            )
        ]
    found: list[tuple[Route, list[str]]] = []
    for route in config.routes:
        if not route.enabled:
            continue
        matched = _matches(route, context)
        if matched is not None:
            found.append((route, matched))
    found.sort(key=lambda rm: (-rm[0].priority, rm[0].name, rm[0].route_id or ""))
    matches = []
    for route, matched in found:
        ids = tuple(route.destination_ids or defaults)
        reason = "matched_" + "_".join(matched) if matched else "catch_all_route"
        matches.append(
            RouteMatch(
                route.route_id,
                route.name,
                ids,
                _approval(config, route.approval_policy, ids, context),
                reason,
                route.approval_policy,
            )
        )
    if not matches:
        ids = tuple(defaults)
        matches.append(
            RouteMatch(
                None, None, ids, _approval(config, "inherit", ids, context), "default_destination"
            )
        )
    return matches
