"""The incident monitor's front door (``engine.incidents``): config, intake, keys, status.

Draft operations, publishing, triage and log sources live in their own modules and
are reached through this service, so routes and the monitor actor see one object.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from actors import SerialByKey

from ..audit.ledger import AuditLedger
from .config import REPORT_SCOPE, MonitorConfig, parse_config, source_binding
from .config_repository import ConfigRepository
from .config_validation import validate_config
from .draft_repository import DraftRepository
from .errors import bad_request, unauthorized
from .failure_pattern_repository import FailurePatternRepository
from .failure_patterns import duplicate_summary, probe
from .intake import new_draft, new_incident, prepare
from .intake_key_repository import IntakeKeyRepository
from .log_source_repository import LogSourceRepository
from .post_repository import PostRepository
from .readiness import ServerView, all_readiness
from .records import Draft, Incident, IntakeKey

if TYPE_CHECKING:
    from ..engine import Engine
    from .monitor import IncidentMonitor

log = logging.getLogger("svc.incidents")

DOMAIN = "incident_monitor"
TOPIC = "incident_monitor"
INTAKE_KEY_PREFIX = "tim_intake_"


def key_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def clamp_limit(value: int | None, default: int = 50) -> int:
    return max(1, min(200, value if value is not None else default))


class IncidentService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.clock = engine.clock
        self.events = engine.events
        self.config_repo = ConfigRepository(engine.store)
        self.drafts = DraftRepository(engine.store)
        self.patterns = FailurePatternRepository(engine.store)
        self.posts = PostRepository(engine.store)
        self.keys = IntakeKeyRepository(engine.store)
        self.log_states = LogSourceRepository(engine.store)
        self.ledger = AuditLedger(engine.store, engine.events, engine.clock)
        self.serial = SerialByKey()
        self.config = MonitorConfig()
        self.last_activity_at_ms: int | None = None
        self.last_error: str | None = None
        self.monitor: IncidentMonitor | None = None
        from .policy_decisions import PolicyDecisionLog
        from .publishing import Publisher
        from .security import IncidentSecurity

        self.decisions = PolicyDecisionLog(engine.store, engine.clock)
        """Every domain's allow/deny/approval decisions (wired by the component)."""
        self.publisher = Publisher(self)
        from .destinations.webhook_clients import WebhookClients

        self.webhook_clients = WebhookClients()
        self.security = IncidentSecurity(self)

    @property
    def state_dir(self) -> Any:
        return self.engine.state_dir / "incident-monitor"

    async def close(self) -> None:
        await self.webhook_clients.aclose()

    async def load(self) -> None:
        doc = await self.config_repo.load()
        if doc is not None:
            self.config = parse_config(doc)

    def now_ms(self) -> int:
        return self.clock.now_ms()

    def publish_event(self, type: str, properties: Mapping[str, Any]) -> None:
        self.events.publish(type, dict(properties), topic=TOPIC)

    # ------------------------------------------------------------------ servers
    def server_view(self, name: str) -> ServerView | None:
        mcp = self.engine.mcp
        snapshot = mcp.snapshot(name) if mcp is not None else None
        if snapshot is None:
            return None
        return ServerView(
            name=name,
            enabled=snapshot.config.enabled,
            connected=snapshot.state.connected,
            tools=tuple(t.tool_name for t in snapshot.allowed_tools()),
        )

    def readiness(self) -> list[Any]:
        return all_readiness(
            self.config, servers=self.server_view, environ=self.engine.settings.environ
        )

    # ------------------------------------------------------------------ config
    def config_body(self) -> dict[str, Any]:
        return {"incident_monitor": self.config.to_wire()}

    async def replace_config(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, Mapping) or not isinstance(body.get("incident_monitor"), Mapping):
            raise bad_request("CONFIG_REQUIRED", "incident_monitor object is required")
        from ..errors import ValidationFailed
        from .errors import ConfigInvalid

        try:
            parsed = parse_config(body["incident_monitor"])
        except ValidationFailed as exc:
            raise ConfigInvalid(exc.message, field=exc.extra.get("field")) from None
        return await self.save_config(parsed)

    async def save_config(self, config: MonitorConfig) -> dict[str, Any]:
        validated = validate_config(config, server_exists=lambda n: self.server_view(n) is not None)
        now = self.now_ms()
        saved = attrs.evolve(validated, updated_at_ms=now)
        audit = self.ledger.entry(
            "incident_monitor.config.updated", _config_summary(saved), domain=DOMAIN
        )
        stored = await self.config_repo.save(saved.to_wire(), now_ms=now, audit=audit)
        previous, self.config = self.config, saved
        if stored is not None:
            self.ledger.announce(stored)
        await self.webhook_clients.retain(saved)
        await self.security.config_changed(previous, saved)
        return {"incident_monitor": saved.to_wire()}

    async def set_paused(self, paused: bool) -> dict[str, Any]:
        body = await self.save_config(attrs.evolve(self.config, paused=paused))
        return {"ok": True, **body}

    # ------------------------------------------------------------------ intake
    async def admin_report(self, body: Any) -> dict[str, Any]:
        report = body.get("report") if isinstance(body, Mapping) else None
        if not isinstance(report, Mapping):
            raise bad_request("REPORT_REQUIRED", "report object is required")
        config = self.config
        fields = prepare(config, report, trusted_binding=None)
        self._check_quality(fields)
        draft = new_draft(config, fields, now_ms=self.now_ms(), project=None)
        recorded = await self.drafts.record_unless_known(
            draft, None, now_ms=self.now_ms(), probe=probe(fields)
        )
        if recorded.known_matches:
            return self._suppressed(fields, recorded.known_matches)
        stored = recorded.draft
        assert stored is not None
        self._announce_draft(stored, recorded.created)
        return {
            "draft": stored.to_wire(),
            "deduplicated": not recorded.created,
            "duplicate_summary": duplicate_summary([]),
            "duplicate_matches": [],
        }

    def _suppressed(
        self, fields: Mapping[str, Any], matches: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """A report of a remembered failure pattern (reference §1.7 step 2): nothing stored."""
        self.last_activity_at_ms = self.now_ms()
        self.publish_event(
            "incident_monitor.report.suppressed",
            {
                "fingerprint": fields["fingerprint"],
                "reason": "duplicate_failure_pattern",
                "pattern_ids": [m["pattern_id"] for m in matches],
            },
        )
        return {
            "suppressed": True,
            "reason": "duplicate_failure_pattern",
            "duplicate_summary": duplicate_summary(matches),
            "duplicate_matches": matches,
        }

    def _check_quality(self, fields: Mapping[str, Any]) -> None:
        if not fields["quality_gate"]["passed"]:
            raise _quality_error(fields)

    def _announce_draft(self, draft: Draft, created: bool) -> None:
        self.last_activity_at_ms = self.now_ms()
        self.publish_event(
            "incident_monitor.draft.created"
            if created
            else "incident_monitor.incident.duplicate_suppressed",
            {
                "draft_id": draft.draft_id,
                "fingerprint": draft.fingerprint,
                "status": draft.status,
                "occurrence_count": draft.get("occurrence_count", 1),
            },
        )

    async def verify_intake_key(self, project_id: str, raw_key: str | None) -> IntakeKey:
        if not raw_key:
            raise unauthorized("INTAKE_KEY_REQUIRED", "an intake key is required")
        presented = key_hash(raw_key.strip())
        match: IntakeKey | None = None
        # Compare against every enabled key of the project, constant-time each, and do not
        # stop at the first match: the time taken says nothing about which key matched.
        for key in await self.keys.enabled_for(project_id):
            if hmac.compare_digest(key.key_hash, presented) and REPORT_SCOPE in key.scopes:
                match = key
        if match is None:
            raise unauthorized("INTAKE_KEY_INVALID", "the intake key is not valid for this project")
        await self.keys.touch(match.key_id, self.now_ms())
        return match

    async def intake_report(self, body: Any, raw_key: str | None) -> dict[str, Any]:
        body = body if isinstance(body, Mapping) else {}
        project_id = body.get("project_id")
        if not isinstance(project_id, str) or not project_id.strip():
            raise bad_request("INTAKE_PROJECT_REQUIRED", "project_id is required")
        project_id = project_id.strip()
        await self.verify_intake_key(project_id, raw_key)
        project = self.config.project(project_id)
        if project is None:
            raise bad_request("INTAKE_PROJECT_UNKNOWN", f"project `{project_id}` is not configured")
        report = body.get("report")
        if not isinstance(report, Mapping):
            raise bad_request("REPORT_REQUIRED", "report object is required")
        source_id = body.get("source_id") or "external"
        source = project.log_source(source_id)
        if project.log_sources and source is None:
            raise bad_request(
                "INTAKE_SOURCE_UNKNOWN", f"source `{source_id}` is not configured for the project"
            )
        binding = source_binding(project, source)
        trusted = {
            **binding.report_fields(),
            "log_source_id": source_id,
            "repo": project.repo or self.config.repo,
            "workspace_root": project.workspace_root,
            "source": report.get("source") or f"incident_monitor.intake.{source_id}",
        }
        fields = prepare(self.config, report, trusted_binding=trusted)
        now = self.now_ms()
        payload = {"project_id": project_id, "source_id": source_id, "intake": True}
        if not fields["quality_gate"]["passed"]:
            blocked = new_incident(
                fields,
                event_type=fields.get("event") or "incident_monitor.external_report",
                status="quality_gate_blocked",
                now_ms=now,
                event_payload=payload,
            )
            _, _, incident, _ = await self.drafts.record(None, blocked, now_ms=now)
            raise _quality_error(fields, incident=incident.to_wire() if incident else None)
        draft = new_draft(self.config, fields, now_ms=now, project=project)
        incident = new_incident(
            fields,
            event_type=fields.get("event") or "incident_monitor.external_report",
            status="draft_created",
            now_ms=now,
            event_payload=payload,
        )
        stored, created, stored_incident, _ = await self.drafts.record(draft, incident, now_ms=now)
        assert stored is not None and stored_incident is not None
        self._announce_draft(stored, created)
        if created:
            self.publish_event(
                "incident_monitor.incident.detected",
                {"incident_id": stored_incident.incident_id, "draft_id": stored.draft_id},
            )
        return {
            "draft": stored.to_wire(),
            "incident": stored_incident.to_wire(),
            "deduplicated": not created,
        }

    async def record_failure(
        self,
        fields: Mapping[str, Any],
        *,
        event_type: str,
        event_payload: Mapping[str, Any],
        project: Any = None,
        check_patterns: bool = False,
    ) -> tuple[Draft | None, Incident | None, bool]:
        """A failure the monitor observed itself (runtime events, log lines).

        ``check_patterns`` (runtime failures, reference §1.9): a failure matching a
        remembered failure pattern keeps only its incident, ``duplicate_suppressed``.
        """
        now = self.now_ms()
        incident = new_incident(
            fields,
            event_type=event_type,
            status="draft_created",
            now_ms=now,
            event_payload=event_payload,
        )
        if not fields["quality_gate"]["passed"]:
            incident = incident.evolve(status="quality_gate_blocked")
            _, _, stored_incident, _ = await self.drafts.record(None, incident, now_ms=now)
            return None, stored_incident, False
        draft = new_draft(self.config, fields, now_ms=now, project=project)
        if check_patterns:
            recorded = await self.drafts.record_unless_known(
                draft, incident, now_ms=now, probe=probe(fields)
            )
            if recorded.known_matches:
                self._suppressed(fields, recorded.known_matches)
                return None, recorded.incident, False
            stored, created, stored_incident = (
                recorded.draft,
                recorded.created,
                recorded.incident,
            )
        else:
            stored, created, stored_incident, _ = await self.drafts.record(
                draft, incident, now_ms=now
            )
        assert stored is not None
        self._announce_draft(stored, created)
        if created and stored_incident is not None:
            self.publish_event(
                "incident_monitor.incident.detected",
                {"incident_id": stored_incident.incident_id, "draft_id": stored.draft_id},
            )
        return stored, stored_incident, created

    # ------------------------------------------------------------------ upkeep
    async def poll_log_sources(self) -> None:
        """Poll every log source that is due (the monitor's tick)."""
        if not self.config.monitored_projects:
            return
        from .log_tailer import poll_due_sources

        await poll_due_sources(self)

    async def recover_triage(self) -> None:
        """Time out triage runs past their deadline (the monitor's tick)."""
        from .triage import recover_timed_out

        await recover_timed_out(self)

    async def prune_retention(self) -> dict[str, int]:
        from .retention import prune

        return await prune(self)

    # ------------------------------------------------------------------ status
    async def status(self) -> dict[str, Any]:
        from .status import build_status

        return {"status": await build_status(self)}


def _quality_error(fields: Mapping[str, Any], **extra: Any) -> Exception:
    gate = fields["quality_gate"]
    return bad_request(
        "REPORT_INVALID",
        "Incident Monitor signal quality gate blocked draft creation",
        detail="Incident Monitor signal quality gate blocked draft creation: "
        f"missing quality gates: {', '.join(gate['missing'])}",
        quality_gate=gate,
        **extra,
    )


def _config_summary(config: MonitorConfig) -> dict[str, Any]:
    """What an audit row may say of a config: counts, ids, kinds, flags; never URLs or secrets."""
    return {
        "enabled": config.enabled,
        "paused": config.paused,
        "repo_present": bool(config.repo),
        "mcp_server": config.mcp_server,
        "destination_count": len(config.destinations),
        "destination_ids": [d.destination_id for d in config.destinations],
        "destination_kinds": sorted({d.kind for d in config.destinations}),
        "has_webhook_secret_ref": any(d.webhook_secret_ref for d in config.destinations),
        "route_count": len(config.routes),
        "route_ids": [r.route_id for r in config.routes],
        "default_destination_ids": list(config.default_destination_ids),
        "project_count": len(config.monitored_projects),
        "project_ids": [p.project_id for p in config.monitored_projects],
        "redact_secrets": config.safety_defaults.redact_secrets,
        "redaction_profile": config.safety_defaults.redaction_profile,
        "block_unready_destinations": config.safety_defaults.block_unready_destinations,
        "retention_days": config.safety_defaults.retention_days,
    }
