"""What every destination adapter gets and gives back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..config import Destination, MonitorConfig
from ..records import Draft, Incident
from ..routing import RouteMatch

if TYPE_CHECKING:
    from ..service import IncidentService


@attrs.frozen
class DeliveryContext:
    service: IncidentService
    config: MonitorConfig
    destination: Destination
    draft: Draft
    incident: Incident | None
    match: RouteMatch
    evidence_digest: str
    idempotency_key: str
    delivery_id: str
    target_ref: str
    recurrence_count: int = 1


@attrs.frozen
class Delivery:
    """The outcome of one delivery attempt series (becomes the receipt)."""

    ok: bool
    action: str
    draft_status: str
    receipt: Mapping[str, Any]
    external_id: str | None = None
    external_url: str | None = None
    external_title: str | None = None
    response_excerpt: str | None = None
    error: str | None = None
    issue_number: int | None = None
    comment_id: str | None = None
    comment_url: str | None = None


class Adapter:
    kind: str = ""
    operation: str = ""
    kind_tag: str = ""
    """The kind part of the idempotency key (reference §1.17)."""

    def target_ref(self, config: MonitorConfig, destination: Destination) -> str:
        raise NotImplementedError

    async def deliver(self, ctx: DeliveryContext) -> Delivery:
        raise NotImplementedError
