"""The bounded, append-only store of policy decisions (the engine's :class:`DecisionSink`).

Deciding domains call :meth:`PolicyDecisionLog.record` on their hot path (every tool
call passes the dispatcher), so recording is a synchronous append to a bounded buffer:
no await, no transaction per decision. The buffer is written in one batch by the
monitor's tick and before every read (inventory, metrics, reports), so what a reader
sees includes everything recorded before its request. Past ``MAX_PENDING`` unflushed
decisions the oldest are dropped and counted, never the caller blocked.
"""

from __future__ import annotations

import collections
import logging
import uuid
from typing import TYPE_CHECKING

from .policy_decision_repository import PolicyDecision, PolicyDecisionRepository

if TYPE_CHECKING:
    from ..audit.decisions import Effect
    from ..clock import Clock
    from ..store import Store

log = logging.getLogger("svc.incidents")

EFFECTS = ("allow", "deny", "approval_required")
MAX_PENDING = 10_000
KEEP = 50_000
"""Stored decisions kept; older ones are pruned as new ones are written."""
MAX_TEXT = 500


def _text(value: str | None) -> str | None:
    if value is None:
        return None
    from ..logs import scrub

    return scrub(str(value))[:MAX_TEXT]


class PolicyDecisionLog:
    def __init__(self, store: Store, clock: Clock, *, keep: int = KEEP) -> None:
        self.repo = PolicyDecisionRepository(store)
        self.clock = clock
        self.keep = keep
        self._pending: collections.deque[PolicyDecision] = collections.deque(maxlen=MAX_PENDING)
        self.dropped = 0
        """Decisions dropped because the buffer was full between flushes."""

    def record(
        self,
        *,
        domain: str,
        effect: Effect,
        subject: str,
        actor_id: str | None = None,
        scope_id: str | None = None,
        code: str | None = None,
        reason: str | None = None,
        approval_id: str | None = None,
        tenant_id: str | None = None,
        workspace_id: str | None = None,
    ) -> None:
        """Queue one decision (never waits, never raises: see the module docstring)."""
        if len(self._pending) == self._pending.maxlen:
            self.dropped += 1
        self._pending.append(
            PolicyDecision(
                decision_id=f"pd-{uuid.uuid4().hex}",
                domain=domain,
                effect=effect if effect in EFFECTS else "deny",
                subject=_text(subject) or "",
                created_at_ms=self.clock.now_ms(),
                actor_id=_text(actor_id),
                scope_id=_text(scope_id),
                code=_text(code),
                reason=_text(reason),
                approval_id=approval_id,
                tenant_id=tenant_id,
                workspace_id=workspace_id,
            )
        )

    async def flush(self) -> int:
        """Write the queued decisions in one transaction; returns how many."""
        if not self._pending:
            return 0
        batch = list(self._pending)
        self._pending.clear()
        try:
            await self.repo.append(batch, keep=self.keep)
        except BaseException:
            # Put them back (oldest first) so a cancelled or failed flush loses nothing
            # the bound allows keeping; the next flush retries.
            self._pending.extendleft(reversed(batch))
            raise
        return len(batch)

    async def window(
        self, *, from_ms: int | None = None, to_ms: int | None = None, limit: int = 100
    ) -> list[PolicyDecision]:
        await self.flush()
        return await self.repo.window(from_ms=from_ms, to_ms=to_ms, limit=limit)

    async def count(self) -> int:
        await self.flush()
        return await self.repo.count()
