"""What agents may do with automations v2 (SPEC 5.5).

Who is asking is the request's :class:`~svc.automations.principal.Principal`.
Agent-created automations v2 are governed by the ``AUTOMATION_V2_AGENT_*`` and
``AUTOMATION_V2_CAPABILITY_ESCALATION_*`` checks below; humans bypass them.
The per-agent state humans set (creation paused, last review, quota override,
capability grants) lives in ``automations_agent_governance``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..clock import Clock
from ..settings import Settings
from .agent_state import AgentState
from .errors import GovernanceDenied
from .governance_repository import GovernanceRepository
from .principal import Principal

if TYPE_CHECKING:
    from .v2.records import AutomationV2
    from .v2.repository import V2Repository

CAPABILITY_KEYS = ("creates_agents", "modifies_grants")
DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS


def denied(code: str, message: str, *, status: int = 403, **extra: Any) -> GovernanceDenied:
    return GovernanceDenied(message, code=code, status=status, **extra)


CapabilityCheck = Callable[[str, str], Awaitable[bool]]
"""``(agent_id, capability_key) -> approved?`` from another domain (an approvals store)."""


def declared_capabilities(spec: Mapping[str, Any]) -> set[str]:
    metadata = spec.get("metadata") or {}
    capabilities = metadata.get("capabilities") if isinstance(metadata, Mapping) else None
    if not isinstance(capabilities, Mapping):
        return set()
    return {key for key in CAPABILITY_KEYS if capabilities.get(key) is True}


class Governance:
    def __init__(
        self,
        states: GovernanceRepository,
        repo: V2Repository,
        clock: Clock,
        settings: Callable[[], Settings],
        *,
        external_capability_check: CapabilityCheck | None = None,
    ) -> None:
        self.states = states
        self.repo = repo
        self.clock = clock
        self.settings = settings
        self.external_capability_check = external_capability_check

    # ------------------------------------------------------------------ checks
    async def authorize_create(self, principal: Principal, spec: Mapping[str, Any]) -> None:
        if not principal.is_agent:
            return
        settings = self.settings()
        if not settings.agent_automation_creation_enabled:
            raise denied(
                "AUTOMATION_V2_CREATION_DISABLED", "agent creation of automations is disabled"
            )
        agent_id = self._agent_id(principal)
        state = await self.state(agent_id)
        now = self.clock.now_ms()
        if state.creation_paused:
            raise denied(
                "AUTOMATION_V2_AGENT_CREATION_PAUSED",
                f"automation creation by agent `{agent_id}` is paused"
                + (f": {state.paused_reason}" if state.paused_reason else ""),
                agentID=agent_id,
            )
        override = state.quota_override_until_ms is not None and state.quota_override_until_ms > now
        cap = settings.agent_automation_weekly_spend_cap_usd
        if cap is not None and not override:
            spent = await self.repo.spend_by(agent_id, now - WEEK_MS)
            if spent >= cap:
                raise denied(
                    "AUTOMATION_V2_AGENT_SPEND_CAP_EXCEEDED",
                    f"agent `{agent_id}` spent {spent:.4f} USD this week (cap {cap:.4f} USD)",
                    status=429,
                    agentID=agent_id,
                    spentUsd=round(spent, 6),
                    capUsd=cap,
                )
        total, recent, active = await self.repo.creations_by(agent_id, now - DAY_MS)
        threshold = settings.agent_automation_creation_review_threshold
        if threshold and total - state.reviewed_creations >= threshold:
            raise denied(
                "AUTOMATION_V2_AGENT_REVIEW_REQUIRED",
                f"agent `{agent_id}` created {total - state.reviewed_creations} automations since "
                "its last review; a human must review them first",
                status=429,
                agentID=agent_id,
            )
        await self._check_escalation(principal, agent_id, declared_capabilities(spec), set())
        if principal.depth > settings.agent_automation_depth_limit:
            raise denied(
                "AUTOMATION_V2_LINEAGE_DEPTH_EXCEEDED",
                f"agent lineage depth {principal.depth} exceeds the limit "
                f"{settings.agent_automation_depth_limit}",
                agentID=agent_id,
                depth=principal.depth,
            )
        if recent >= settings.agent_automation_creation_daily_limit and not override:
            raise denied(
                "AUTOMATION_V2_AGENT_DAILY_QUOTA_EXCEEDED",
                f"agent `{agent_id}` created {recent} automations in the last 24 hours (limit "
                f"{settings.agent_automation_creation_daily_limit})",
                status=429,
                agentID=agent_id,
            )
        if active >= settings.agent_automation_active_cap:
            raise denied(
                "AUTOMATION_V2_AGENT_CAP_EXCEEDED",
                f"agent `{agent_id}` already authors {active} automations (cap "
                f"{settings.agent_automation_active_cap})",
                status=429,
                agentID=agent_id,
            )

    async def authorize_mutation(
        self,
        principal: Principal,
        automation: AutomationV2,
        *,
        delete: bool = False,
        new_spec: Mapping[str, Any] | None = None,
    ) -> None:
        if not principal.is_agent:
            return
        agent_id = self._agent_id(principal)
        now = self.clock.now_ms()
        if automation.status == "retired":
            raise denied(
                "AUTOMATION_V2_RETIRED",
                f"automation `{automation.automation_id}` is retired",
                automationID=automation.automation_id,
            )
        expires = (automation.spec.get("metadata") or {}).get("expires_at_ms")
        if isinstance(expires, int) and expires <= now:
            raise denied(
                "AUTOMATION_V2_EXPIRED",
                f"automation `{automation.automation_id}` has expired",
                automationID=automation.automation_id,
            )
        state = await self.state(agent_id)
        if state.creation_paused:
            raise denied(
                "AUTOMATION_V2_LIFECYCLE_PAUSED",
                f"agent `{agent_id}` is paused by governance",
                agentID=agent_id,
            )
        owner = automation.creator_kind == "agent" and automation.creator_id == agent_id
        if delete and automation.creator_kind != "agent":
            raise denied(
                "AUTOMATION_V2_DELETE_HUMAN_CREATED_DENIED",
                "agents cannot delete automations a human created",
                automationID=automation.automation_id,
            )
        if delete and not owner:
            raise denied(
                "AUTOMATION_V2_DELETE_NOT_OWNER",
                "agents can only delete automations they created",
                automationID=automation.automation_id,
            )
        if not owner:
            raise denied(
                "AUTOMATION_V2_MODIFY_FORBIDDEN",
                "agents can only modify automations they created",
                automationID=automation.automation_id,
            )
        if new_spec is not None:
            await self._check_escalation(
                principal,
                agent_id,
                declared_capabilities(new_spec),
                declared_capabilities(automation.spec),
            )

    async def _check_escalation(
        self, principal: Principal, agent_id: str, wanted: set[str], had: set[str]
    ) -> None:
        for key in sorted(wanted - had):
            if not await self.capability_approved(agent_id, key):
                raise denied(
                    "AUTOMATION_V2_CAPABILITY_ESCALATION_FORBIDDEN",
                    f"agent `{agent_id}` declares capability `{key}` without an approved, "
                    "unexpired capability request",
                    agentID=agent_id,
                    capability=key,
                )

    async def capability_approved(self, agent_id: str, key: str) -> bool:
        state = await self.state(agent_id)
        if key in state.capability_grants:
            expires = state.capability_grants[key]
            if expires is None or expires > self.clock.now_ms():
                return True
        if self.external_capability_check is not None:
            return bool(await self.external_capability_check(agent_id, key))
        return False

    def _agent_id(self, principal: Principal) -> str:
        if not principal.agent_id:
            raise denied(
                "AUTOMATION_V2_AGENT_ID_REQUIRED",
                "an agent request must name its agent in the x-svc-agent-id header",
            )
        return principal.agent_id

    # ------------------------------------------------------------------ human-set state
    async def state(self, agent_id: str) -> AgentState:
        return await self.states.state(agent_id)

    async def update(self, agent_id: str, **changes: Any) -> AgentState:
        state = attrs.evolve(
            await self.state(agent_id), updated_at_ms=self.clock.now_ms(), **changes
        )
        await self.states.save(state)
        return state

    async def summary(self, agent_id: str) -> dict[str, Any]:
        now = self.clock.now_ms()
        state = await self.state(agent_id)
        total, recent, active = await self.repo.creations_by(agent_id, now - DAY_MS)
        return {
            **state.to_wire(),
            "created_total": total,
            "created_last_24h": recent,
            "active_authored": active,
            "spend_last_7d_usd": round(await self.repo.spend_by(agent_id, now - WEEK_MS), 6),
        }

    async def pause(self, agent_id: str, reason: str | None) -> AgentState:
        return await self.update(agent_id, creation_paused=True, paused_reason=reason)

    async def resume(self, agent_id: str) -> AgentState:
        return await self.update(agent_id, creation_paused=False, paused_reason=None)

    async def mark_reviewed(self, agent_id: str) -> AgentState:
        total, _recent, _active = await self.repo.creations_by(agent_id, 0)
        return await self.update(agent_id, reviewed_creations=total)

    async def override_quota(self, agent_id: str, until_ms: int | None) -> AgentState:
        return await self.update(agent_id, quota_override_until_ms=until_ms)

    async def grant_capability(
        self, agent_id: str, key: str, expires_at_ms: int | None
    ) -> AgentState:
        state = await self.state(agent_id)
        return await self.update(
            agent_id, capability_grants={**state.capability_grants, key: expires_at_ms}
        )


__all__ = [
    "CAPABILITY_KEYS",
    "AgentState",
    "CapabilityCheck",
    "Governance",
    "declared_capabilities",
    "denied",
]
