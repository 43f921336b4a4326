"""Automations v2: definitions, runs, gates, and their scheduling hooks.

Definitions are kept in memory (loaded at start-up, written through to the
store); runs that have not ended are kept in memory too, so every change to a
run goes through this service one at a time. Runs execute in the v2
:class:`~svc.automations.pool.RunPool`; a run interrupted by a shutdown or a
crash resumes at the next start from its completed nodes.

Every lifecycle event is published on topic ``automations/v2`` and carries
``runID`` and ``automationID``: ``automation.v2.run.created``, ``run.started``,
``run.step`` (``phase``: node_started, node_completed, node_failed,
node_skipped, gate_decided), ``approval.required``, and exactly one of
``run.completed``, ``run.failed`` or ``run.cancelled`` at the end.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from .scheduling import V2Scheduling
from .state import TOPIC

if TYPE_CHECKING:
    from .webhooks import WebhookTriggers


class V2Service(V2Scheduling):
    """The automations v2 service: every layer (see :mod:`.state`), as ``engine.automations.v2``."""

    @cached_property
    def webhooks(self) -> WebhookTriggers:
        """The automations' webhook triggers (built on first use: most engines have none)."""
        from .webhook_repository import WebhookRepository
        from .webhooks import WebhookTriggers

        return WebhookTriggers(self, WebhookRepository(self.repo.db))


__all__ = ["TOPIC", "V2Service"]
