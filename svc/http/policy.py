"""The route policy inventory: who may call each route, one row per method and rule.

Every route the URL map serves has a row; ``tests/svc/http/test_route_policy.py``
fails when a route has none (a new route must say who may call it) or a row
names a route that no longer exists, and sends every route a request with no
token, a wrong token and the right token in each accepted header.

The gate (``svc/http/gate.py``) enforces the classes that exist today: a
``PUBLIC`` row must be in ``auth.PUBLIC_ROUTES`` and nothing else is.
"""

from __future__ import annotations

import enum


class Auth(enum.Enum):
    """Who may call a route."""

    PUBLIC = "public"
    """Anyone who passes the Host and Origin checks; no token (health, the /doc page shell)."""
    TOKEN = "token"
    """The API token in ``X-Agent-Token``, ``X-Svc-Token`` or ``Authorization: Bearer``."""
    ADMIN = "admin"
    """The full API token (engine-wide effects); no scoped key ever reaches these."""
    LOOPBACK_HOST_EFFECT = "loopback_host_effect"
    """The token, and a loopback listener: the route acts on the host itself."""
    INTAKE_KEY = "intake_key"
    """A project's intake key (``x-svc-incident-monitor-intake-key`` or a bearer credential),
    checked by the route: the gate asks no engine token here, and the engine token is no key."""
    SIGNED_WEBHOOK = "signed_webhook"
    """No token: an HMAC signature over the raw body (Slack's ``X-Slack-Signature``)."""


PUBLIC = Auth.PUBLIC
TOKEN = Auth.TOKEN
ADMIN = Auth.ADMIN

ROUTE_POLICY: dict[tuple[str, str], Auth] = {
    # admin
    ("POST", "/admin/reload-config"): ADMIN,
    # agent-team
    ("GET", "/agent-team/approvals"): TOKEN,
    ("POST", "/agent-team/approvals/spawn/<approval_id>/approve"): TOKEN,
    ("POST", "/agent-team/approvals/spawn/<approval_id>/deny"): TOKEN,
    ("GET", "/agent-team/instance/<instance_id>"): TOKEN,
    ("POST", "/agent-team/instance/<instance_id>/cancel"): TOKEN,
    ("POST", "/agent-team/instance/<instance_id>/prompt"): TOKEN,
    ("GET", "/agent-team/instances"): TOKEN,
    ("POST", "/agent-team/mission/<mission_id>/cancel"): TOKEN,
    ("GET", "/agent-team/missions"): TOKEN,
    ("POST", "/agent-team/spawn"): TOKEN,
    ("GET", "/agent-team/templates"): TOKEN,
    ("POST", "/agent-team/templates"): TOKEN,
    ("DELETE", "/agent-team/templates/<template_id>"): TOKEN,
    ("PATCH", "/agent-team/templates/<template_id>"): TOKEN,
    # api
    ("GET", "/api/session"): TOKEN,
    ("POST", "/api/session"): TOKEN,
    ("DELETE", "/api/session/<session_id>"): TOKEN,
    ("GET", "/api/session/<session_id>"): TOKEN,
    ("PATCH", "/api/session/<session_id>"): TOKEN,
    ("POST", "/api/session/<session_id>/abort"): TOKEN,
    ("POST", "/api/session/<session_id>/cancel"): TOKEN,
    ("GET", "/api/session/<session_id>/message"): TOKEN,
    ("POST", "/api/session/<session_id>/message"): TOKEN,
    ("POST", "/api/session/<session_id>/prompt_async"): TOKEN,
    ("POST", "/api/session/<session_id>/prompt_sync"): TOKEN,
    ("GET", "/api/session/<session_id>/run"): TOKEN,
    ("POST", "/api/session/<session_id>/run/<run_id>/cancel"): TOKEN,
    ("GET", "/api/session/<session_id>/todo"): TOKEN,
    # automations
    ("GET", "/automations"): TOKEN,
    ("POST", "/automations"): TOKEN,
    ("DELETE", "/automations/<routine_id>"): TOKEN,
    ("PATCH", "/automations/<routine_id>"): TOKEN,
    ("GET", "/automations/<routine_id>/history"): TOKEN,
    ("POST", "/automations/<routine_id>/run_now"): TOKEN,
    ("GET", "/automations/<routine_id>/runs"): TOKEN,
    ("GET", "/automations/events"): TOKEN,
    ("GET", "/automations/runs"): TOKEN,
    ("GET", "/automations/runs/<run_id>"): TOKEN,
    ("POST", "/automations/runs/<run_id>/approve"): TOKEN,
    ("GET", "/automations/runs/<run_id>/artifacts"): TOKEN,
    ("POST", "/automations/runs/<run_id>/artifacts"): TOKEN,
    ("POST", "/automations/runs/<run_id>/deny"): TOKEN,
    ("POST", "/automations/runs/<run_id>/pause"): TOKEN,
    ("POST", "/automations/runs/<run_id>/resume"): TOKEN,
    ("GET", "/automations/v2"): TOKEN,
    ("POST", "/automations/v2"): TOKEN,
    ("DELETE", "/automations/v2/<automation_id>"): TOKEN,
    ("GET", "/automations/v2/<automation_id>"): TOKEN,
    ("PATCH", "/automations/v2/<automation_id>"): TOKEN,
    ("POST", "/automations/v2/<automation_id>/run_now"): TOKEN,
    ("GET", "/automations/v2/<automation_id>/runs"): TOKEN,
    ("GET", "/automations/v2/events"): TOKEN,
    ("GET", "/automations/v2/governance/agents/<agent_id>"): TOKEN,
    ("POST", "/automations/v2/governance/agents/<agent_id>/<action>"): TOKEN,
    ("GET", "/automations/v2/runs"): TOKEN,
    ("GET", "/automations/v2/runs/<run_id>"): TOKEN,
    ("POST", "/automations/v2/runs/<run_id>/cancel"): TOKEN,
    ("POST", "/automations/v2/runs/<run_id>/gate"): TOKEN,
    # browser
    ("POST", "/browser/install"): Auth.LOOPBACK_HOST_EFFECT,
    ("POST", "/browser/smoke-test"): Auth.LOOPBACK_HOST_EFFECT,
    ("GET", "/browser/status"): TOKEN,
    # capabilities
    ("GET", "/capabilities/bindings"): TOKEN,
    ("PUT", "/capabilities/bindings"): TOKEN,
    ("GET", "/capabilities/discovery"): TOKEN,
    ("POST", "/capabilities/resolve"): TOKEN,
    # channels
    ("DELETE", "/channels/<name>"): TOKEN,
    ("PUT", "/channels/<name>"): TOKEN,
    ("GET", "/channels/<name>/tool-preferences"): TOKEN,
    ("PUT", "/channels/<name>/tool-preferences"): TOKEN,
    ("POST", "/channels/<name>/verify"): TOKEN,
    ("GET", "/channels/config"): TOKEN,
    ("POST", "/channels/slack/events"): Auth.SIGNED_WEBHOOK,
    ("GET", "/channels/status"): TOKEN,
    # coder
    ("GET", "/coder/projects/<project_id>/bindings"): TOKEN,
    ("PUT", "/coder/projects/<project_id>/bindings"): TOKEN,
    ("GET", "/coder/projects/<project_id>/repohost-project/inbox"): TOKEN,
    ("POST", "/coder/projects/<project_id>/repohost-project/intake"): TOKEN,
    # config
    ("GET", "/config/identity"): TOKEN,
    ("PATCH", "/config/identity"): TOKEN,
    ("GET", "/config/incident-monitor"): TOKEN,
    ("PATCH", "/config/incident-monitor"): TOKEN,
    ("GET", "/config/providers"): TOKEN,
    # context
    ("GET", "/context/runs/events/stream"): TOKEN,
    # enterprise
    ("GET", "/enterprise/connector-providers"): TOKEN,
    ("GET", "/enterprise/connectors"): TOKEN,
    ("POST", "/enterprise/connectors"): TOKEN,
    ("PATCH", "/enterprise/connectors/<connector_id>"): TOKEN,
    ("POST", "/enterprise/connectors/<connector_id>/credential-refs"): TOKEN,
    (
        "PATCH",
        "/enterprise/connectors/<connector_id>/credential-refs/<credential_id>/rotate",
    ): TOKEN,
    ("GET", "/enterprise/connectors/<connector_id>/impact"): TOKEN,
    ("GET", "/enterprise/events"): TOKEN,
    ("GET", "/enterprise/ingestion-jobs"): TOKEN,
    ("GET", "/enterprise/ingestion-quarantines"): TOKEN,
    ("PATCH", "/enterprise/ingestion-quarantines/<quarantine_id>/review"): TOKEN,
    ("POST", "/enterprise/memory/search"): TOKEN,
    ("POST", "/enterprise/onboarding-plans/preview"): TOKEN,
    ("GET", "/enterprise/org-unit-access-grants"): TOKEN,
    ("POST", "/enterprise/org-unit-access-grants"): TOKEN,
    ("PATCH", "/enterprise/org-unit-access-grants/<grant_id>"): TOKEN,
    ("GET", "/enterprise/org-unit-access-grants/effective"): TOKEN,
    ("GET", "/enterprise/org-unit-memberships"): TOKEN,
    ("POST", "/enterprise/org-unit-memberships"): TOKEN,
    ("PATCH", "/enterprise/org-unit-memberships/<membership_id>"): TOKEN,
    ("GET", "/enterprise/org-units"): TOKEN,
    ("POST", "/enterprise/org-units"): TOKEN,
    ("GET", "/enterprise/readiness"): TOKEN,
    ("GET", "/enterprise/source-bindings"): TOKEN,
    ("POST", "/enterprise/source-bindings"): TOKEN,
    ("PATCH", "/enterprise/source-bindings/<binding_id>"): TOKEN,
    ("POST", "/enterprise/source-bindings/<binding_id>/import"): TOKEN,
    ("POST", "/enterprise/source-bindings/<binding_id>/preflight"): TOKEN,
    ("POST", "/enterprise/source-bindings/<binding_id>/reindex"): TOKEN,
    ("GET", "/enterprise/status"): TOKEN,
    # event
    ("GET", "/event"): TOKEN,
    # global
    ("GET", "/global/event"): TOKEN,
    ("GET", "/global/health"): PUBLIC,
    ("GET", "/global/storage/files"): TOKEN,
    # goals
    ("GET", "/goals"): TOKEN,
    ("POST", "/goals"): TOKEN,
    ("GET", "/goals/<goal_id>"): TOKEN,
    ("POST", "/goals/<goal_id>/actions/<path:action_id>"): TOKEN,
    ("GET", "/goals/<goal_id>/artifacts"): TOKEN,
    ("GET", "/goals/<goal_id>/budgets"): TOKEN,
    ("POST", "/goals/<goal_id>/cancel"): TOKEN,
    ("POST", "/goals/<goal_id>/completion"): TOKEN,
    ("GET", "/goals/<goal_id>/events"): TOKEN,
    ("GET", "/goals/<goal_id>/events/stream"): TOKEN,
    ("GET", "/goals/<goal_id>/graph"): TOKEN,
    ("GET", "/goals/<goal_id>/handoffs"): TOKEN,
    ("POST", "/goals/<goal_id>/handoffs/<handoff_id>/decision"): TOKEN,
    ("POST", "/goals/<goal_id>/pause"): TOKEN,
    ("GET", "/goals/<goal_id>/projection"): TOKEN,
    ("POST", "/goals/<goal_id>/resume"): TOKEN,
    ("GET", "/goals/<goal_id>/runs"): TOKEN,
    ("POST", "/goals/<goal_id>/transitions"): TOKEN,
    ("GET", "/goals/<goal_id>/waits"): TOKEN,
    ("GET", "/goals/<goal_id>/waits/<wait_id>"): TOKEN,
    ("POST", "/goals/<goal_id>/waits/<wait_id>/resolve"): TOKEN,
    ("GET", "/goals/legacy/handoffs"): TOKEN,
    # incident-monitor
    ("GET", "/incident-monitor/debug"): TOKEN,
    ("GET", "/incident-monitor/drafts"): TOKEN,
    ("DELETE", "/incident-monitor/drafts/<draft_id>"): TOKEN,
    ("GET", "/incident-monitor/drafts/<draft_id>"): TOKEN,
    ("POST", "/incident-monitor/drafts/<draft_id>/approve"): TOKEN,
    ("POST", "/incident-monitor/drafts/<draft_id>/deny"): TOKEN,
    ("POST", "/incident-monitor/drafts/<draft_id>/issue-draft"): TOKEN,
    ("POST", "/incident-monitor/drafts/<draft_id>/publish"): TOKEN,
    ("POST", "/incident-monitor/drafts/<draft_id>/recheck-match"): TOKEN,
    ("POST", "/incident-monitor/drafts/<draft_id>/triage-run"): TOKEN,
    ("POST", "/incident-monitor/drafts/<draft_id>/triage-summary"): TOKEN,
    ("POST", "/incident-monitor/drafts/bulk-delete"): TOKEN,
    ("GET", "/incident-monitor/incidents"): TOKEN,
    ("DELETE", "/incident-monitor/incidents/<incident_id>"): TOKEN,
    ("GET", "/incident-monitor/incidents/<incident_id>"): TOKEN,
    ("POST", "/incident-monitor/incidents/<incident_id>/replay"): TOKEN,
    ("POST", "/incident-monitor/incidents/bulk-delete"): TOKEN,
    ("GET", "/incident-monitor/intake/keys"): TOKEN,
    ("POST", "/incident-monitor/intake/keys"): TOKEN,
    ("POST", "/incident-monitor/intake/keys/<key_id>/disable"): TOKEN,
    ("POST", "/incident-monitor/intake/report"): Auth.INTAKE_KEY,
    ("POST", "/incident-monitor/log-sources/<project_id>/<source_id>/replay-latest"): TOKEN,
    ("POST", "/incident-monitor/log-sources/<project_id>/<source_id>/reset-offset"): TOKEN,
    ("POST", "/incident-monitor/pause"): TOKEN,
    ("GET", "/incident-monitor/posts"): TOKEN,
    ("DELETE", "/incident-monitor/posts/<post_id>"): TOKEN,
    ("POST", "/incident-monitor/posts/bulk-delete"): TOKEN,
    ("POST", "/incident-monitor/report"): TOKEN,
    ("POST", "/incident-monitor/resume"): TOKEN,
    ("POST", "/incident-monitor/route-preview"): TOKEN,
    ("POST", "/incident-monitor/security/assessment-probes"): ADMIN,
    ("POST", "/incident-monitor/security/assessment-report"): ADMIN,
    ("GET", "/incident-monitor/security/authority-inventory"): ADMIN,
    ("POST", "/incident-monitor/security/deployment-cards"): ADMIN,
    ("GET", "/incident-monitor/security/evidence"): ADMIN,
    ("GET", "/incident-monitor/security/evidence/<context_run_id>"): ADMIN,
    ("POST", "/incident-monitor/security/governance-metrics"): ADMIN,
    ("GET", "/incident-monitor/security/posture-checks"): ADMIN,
    ("GET", "/incident-monitor/security/reassessments"): ADMIN,
    ("POST", "/incident-monitor/security/reassessments"): ADMIN,
    ("GET", "/incident-monitor/security/scenario-packs"): ADMIN,
    ("POST", "/incident-monitor/security/scenario-packs"): ADMIN,
    ("GET", "/incident-monitor/status"): TOKEN,
    ("POST", "/incident-monitor/status/recompute"): TOKEN,
    # mcp
    ("GET", "/mcp"): TOKEN,
    ("POST", "/mcp"): TOKEN,
    ("DELETE", "/mcp/<name>"): TOKEN,
    ("PATCH", "/mcp/<name>"): TOKEN,
    ("POST", "/mcp/<name>/connect"): TOKEN,
    ("POST", "/mcp/<name>/disconnect"): TOKEN,
    ("POST", "/mcp/<name>/refresh"): TOKEN,
    ("GET", "/mcp/capability-requests"): TOKEN,
    ("GET", "/mcp/catalog"): TOKEN,
    ("POST", "/mcp/request-capability"): TOKEN,
    ("GET", "/mcp/tools"): TOKEN,
    # memory
    ("GET", "/memory"): TOKEN,
    ("DELETE", "/memory/<record_id>"): TOKEN,
    ("GET", "/memory/<record_id>"): TOKEN,
    ("GET", "/memory/audit"): TOKEN,
    ("POST", "/memory/demote"): TOKEN,
    ("POST", "/memory/import"): TOKEN,
    ("POST", "/memory/promote"): TOKEN,
    ("POST", "/memory/put"): TOKEN,
    ("POST", "/memory/search"): TOKEN,
    # metrics
    ("GET", "/metrics"): TOKEN,
    # mission
    ("GET", "/mission"): TOKEN,
    ("POST", "/mission"): TOKEN,
    ("GET", "/mission/<mission_id>"): TOKEN,
    ("POST", "/mission/<mission_id>/event"): TOKEN,
    # optimizations
    ("GET", "/optimizations"): TOKEN,
    ("POST", "/optimizations"): TOKEN,
    ("GET", "/optimizations/<optimization_id>"): TOKEN,
    ("POST", "/optimizations/<optimization_id>/actions"): TOKEN,
    ("GET", "/optimizations/<optimization_id>/experiments"): TOKEN,
    ("GET", "/optimizations/<optimization_id>/experiments/<experiment_id>"): TOKEN,
    ("POST", "/optimizations/<optimization_id>/experiments/<experiment_id>"): TOKEN,
    # orchestrations
    ("GET", "/orchestrations"): TOKEN,
    ("POST", "/orchestrations"): TOKEN,
    ("GET", "/orchestrations/<orchestration_id>"): TOKEN,
    ("PUT", "/orchestrations/<orchestration_id>"): TOKEN,
    ("POST", "/orchestrations/<orchestration_id>/archive"): TOKEN,
    ("POST", "/orchestrations/<orchestration_id>/dry-run"): TOKEN,
    ("POST", "/orchestrations/<orchestration_id>/publish"): TOKEN,
    ("POST", "/orchestrations/<orchestration_id>/refresh-references"): TOKEN,
    ("GET", "/orchestrations/<orchestration_id>/stale-references"): TOKEN,
    ("POST", "/orchestrations/<orchestration_id>/validate"): TOKEN,
    ("GET", "/orchestrations/<orchestration_id>/versions"): TOKEN,
    ("GET", "/orchestrations/<orchestration_id>/versions/<int:version>"): TOKEN,
    # packs
    ("GET", "/packs"): TOKEN,
    ("POST", "/packs/detect"): TOKEN,
    ("POST", "/packs/export"): TOKEN,
    ("POST", "/packs/install"): TOKEN,
    ("POST", "/packs/install_from_attachment"): TOKEN,
    ("POST", "/packs/uninstall"): TOKEN,
    ("GET", "/packs/<selector>"): TOKEN,
    ("POST", "/packs/<selector>/update"): TOKEN,
    ("GET", "/packs/<selector>/updates"): TOKEN,
    # permission
    ("GET", "/permission"): TOKEN,
    ("POST", "/permission/<request_id>/reply"): TOKEN,
    # question
    ("GET", "/question"): TOKEN,
    ("POST", "/question/<question_id>/reject"): TOKEN,
    ("POST", "/question/<question_id>/reply"): TOKEN,
    # resource
    ("DELETE", "/resource"): TOKEN,
    ("GET", "/resource"): TOKEN,
    ("PUT", "/resource"): TOKEN,
    ("GET", "/resource/events"): TOKEN,
    ("DELETE", "/resource/<path:key>"): TOKEN,
    ("GET", "/resource/<path:key>"): TOKEN,
    ("PATCH", "/resource/<path:key>"): TOKEN,
    ("PUT", "/resource/<path:key>"): TOKEN,
    # routines
    ("GET", "/routines"): TOKEN,
    ("POST", "/routines"): TOKEN,
    ("DELETE", "/routines/<routine_id>"): TOKEN,
    ("PATCH", "/routines/<routine_id>"): TOKEN,
    ("GET", "/routines/<routine_id>/history"): TOKEN,
    ("POST", "/routines/<routine_id>/run_now"): TOKEN,
    ("GET", "/routines/<routine_id>/runs"): TOKEN,
    ("GET", "/routines/events"): TOKEN,
    ("GET", "/routines/runs"): TOKEN,
    ("GET", "/routines/runs/<run_id>"): TOKEN,
    ("POST", "/routines/runs/<run_id>/approve"): TOKEN,
    ("GET", "/routines/runs/<run_id>/artifacts"): TOKEN,
    ("POST", "/routines/runs/<run_id>/artifacts"): TOKEN,
    ("POST", "/routines/runs/<run_id>/deny"): TOKEN,
    ("POST", "/routines/runs/<run_id>/pause"): TOKEN,
    ("POST", "/routines/runs/<run_id>/resume"): TOKEN,
    # run
    ("GET", "/run/<run_id>/events"): TOKEN,
    # runs
    ("GET", "/runs/<run_id>/events"): TOKEN,
    # session
    ("GET", "/session"): TOKEN,
    ("POST", "/session"): TOKEN,
    ("DELETE", "/session/<session_id>"): TOKEN,
    ("GET", "/session/<session_id>"): TOKEN,
    ("PATCH", "/session/<session_id>"): TOKEN,
    ("POST", "/session/<session_id>/abort"): TOKEN,
    ("POST", "/session/<session_id>/cancel"): TOKEN,
    ("GET", "/session/<session_id>/message"): TOKEN,
    ("POST", "/session/<session_id>/message"): TOKEN,
    ("POST", "/session/<session_id>/prompt_async"): TOKEN,
    ("POST", "/session/<session_id>/prompt_sync"): TOKEN,
    ("GET", "/session/<session_id>/run"): TOKEN,
    ("POST", "/session/<session_id>/run/<run_id>/cancel"): TOKEN,
    ("GET", "/session/<session_id>/todo"): TOKEN,
    ("GET", "/session/status"): TOKEN,
    # sessions
    ("POST", "/sessions/<session_id>/questions/<question_id>/answer"): TOKEN,
    ("POST", "/sessions/<session_id>/tools/<request_id>/approve"): TOKEN,
    ("POST", "/sessions/<session_id>/tools/<request_id>/deny"): TOKEN,
    # skills
    ("GET", "/skills"): TOKEN,
    ("POST", "/skills/import"): TOKEN,
    ("POST", "/skills/import/preview"): TOKEN,
    ("GET", "/skills/templates"): TOKEN,
    ("GET", "/skills/<path:name>"): TOKEN,
    # tool
    ("GET", "/tool"): TOKEN,
    ("POST", "/tool/execute"): TOKEN,
    ("GET", "/tool/ids"): TOKEN,
    # workflow-hooks
    ("GET", "/workflow-hooks"): TOKEN,
    ("PATCH", "/workflow-hooks/<binding_id>"): TOKEN,
    # workflow-plans
    ("GET", "/workflow-plans/<plan_id>"): TOKEN,
    ("POST", "/workflow-plans/apply"): TOKEN,
    ("POST", "/workflow-plans/chat/message"): TOKEN,
    ("POST", "/workflow-plans/chat/reset"): TOKEN,
    ("POST", "/workflow-plans/chat/start"): TOKEN,
    ("POST", "/workflow-plans/import"): TOKEN,
    ("POST", "/workflow-plans/import/preview"): TOKEN,
    ("POST", "/workflow-plans/preview"): TOKEN,
    ("GET", "/workflow-plans/sessions"): TOKEN,
    ("GET", "/workflow-plans/sessions/<session_id>"): TOKEN,
    # workflows
    ("GET", "/workflows"): TOKEN,
    ("GET", "/workflows/<workflow_id>"): TOKEN,
    ("POST", "/workflows/<workflow_id>/run"): TOKEN,
    ("GET", "/workflows/events"): TOKEN,
    ("GET", "/workflows/runs"): TOKEN,
    ("GET", "/workflows/runs/<run_id>"): TOKEN,
    ("POST", "/workflows/runs/<run_id>/cancel"): TOKEN,
    ("POST", "/workflows/runs/<run_id>/gate"): TOKEN,
    ("POST", "/workflows/simulate"): TOKEN,
    ("POST", "/workflows/validate"): TOKEN,
    # the reference of this API (svc/http/routes/docs.py)
    ("GET", "/doc"): PUBLIC,
    ("GET", "/doc/<asset>"): PUBLIC,
    ("GET", "/openapi.json"): TOKEN,
}


def policy_of(method: str, rule: str) -> Auth | None:
    """The row of ``method`` on the URL rule ``rule`` (HEAD is GET's), or None."""
    return ROUTE_POLICY.get(("GET" if method == "HEAD" else method, rule))


__all__ = ["ROUTE_POLICY", "Auth", "policy_of"]
