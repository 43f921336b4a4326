"""Local destinations: a telemetry file (one JSON line per delivery) and internal memory
(a summary kept as the receipt itself, in the posts store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import trio

from ..config import Destination, MonitorConfig
from ..readiness import memory_category
from ..redaction import redact_text
from .base import Adapter, Delivery, DeliveryContext

DEFAULT_TELEMETRY = "incident-monitor/telemetry"


def telemetry_path(ctx: DeliveryContext) -> Path:
    d = ctx.destination
    raw = (d.telemetry_path or d.option("telemetry_path", "path") or DEFAULT_TELEMETRY).strip()
    path = Path(raw)
    if path.is_absolute():
        return path
    base = ctx.service.state_dir
    resolved = (base / path).resolve()
    if base.resolve() not in resolved.parents:
        raise ValueError("a relative telemetry path must stay inside the monitor's state dir")
    return resolved


def _common(ctx: DeliveryContext, provider: str, operation: str) -> dict[str, Any]:
    draft = ctx.draft
    return {
        "provider": provider,
        "operation": operation,
        "destination_id": ctx.destination.destination_id,
        "repo": draft.repo,
        "fingerprint": draft.fingerprint,
        "title": redact_text(draft.text("title") or "", "default")[:240],
        "incident_id": ctx.incident.incident_id if ctx.incident else None,
        "evidence_digest": ctx.evidence_digest,
        "risk_level": draft.get("risk_level"),
        "confidence": draft.get("confidence"),
        "route_id": ctx.match.route_id,
        "route_match_reason": ctx.match.reason,
        "project_id": draft.get("project_id"),
        "log_source_id": draft.get("log_source_id"),
        "tenant_id": draft.get("tenant_id"),
        "idempotency_key": ctx.idempotency_key,
        "record_id": None,
    }


class TelemetryAdapter(Adapter):
    kind = "telemetry"
    operation = "record_telemetry"
    kind_tag = "telemetry"

    def target_ref(self, config: MonitorConfig, destination: Destination) -> str:
        raw = destination.telemetry_path or destination.option("telemetry_path", "path")
        return f"telemetry:{raw or DEFAULT_TELEMETRY}"

    async def deliver(self, ctx: DeliveryContext) -> Delivery:
        path = telemetry_path(ctx)
        receipt = _common(ctx, "incident_monitor_telemetry", self.operation)
        record_id = f"svctel_{ctx.idempotency_key[:24]}"
        receipt.update(
            record_id=record_id,
            status="posted",
            telemetry_path=str(path),
            target_ref=ctx.target_ref,
            redaction_profile=ctx.draft.get("redaction_profile")
            or "incident_monitor_local_default",
            retention_profile=ctx.draft.get("retention_profile")
            or "incident_monitor_destination_receipt",
        )
        line = json.dumps(receipt, separators=(",", ":"), ensure_ascii=False) + "\n"
        await trio.to_thread.run_sync(_append, path, line)
        return Delivery(
            ok=True,
            action=self.operation,
            draft_status="telemetry_recorded",
            receipt=receipt,
            external_id=record_id,
            external_title="Telemetry record",
        )


def _append(path: Path, line: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)


class MemoryAdapter(Adapter):
    kind = "internal_memory"
    operation = "store_memory_summary"
    kind_tag = "internal_memory"

    def target_ref(self, config: MonitorConfig, destination: Destination) -> str:
        return f"memory:{memory_category(destination) or 'failure_pattern'}"

    async def deliver(self, ctx: DeliveryContext) -> Delivery:
        category = memory_category(ctx.destination) or "failure_pattern"
        draft = ctx.draft
        receipt = _common(ctx, "incident_monitor_internal_memory", self.operation)
        record_id = f"svcmem_{ctx.idempotency_key[:24]}"
        summary = (
            f"{category}: {receipt['title']}. fingerprint={draft.fingerprint} repo={draft.repo} "
            f"risk={draft.get('risk_level')} risk_category={draft.get('risk_category')} "
            f"confidence={draft.get('confidence')} recurrence_count={ctx.recurrence_count}"
        )[:800]
        receipt.update(
            record_id=record_id,
            memory_ref=record_id,
            status="posted",
            stored=True,
            storage_backend="incident_monitor_posts",
            category=category,
            target_ref=ctx.target_ref,
            summary=summary,
            recurrence_count=ctx.recurrence_count,
            retention_profile=draft.get("retention_profile") or "incident_monitor_memory_signal",
        )
        return Delivery(
            ok=True,
            action=self.operation,
            draft_status="memory_summary_stored",
            receipt=receipt,
            external_id=record_id,
            external_title=f"Memory {category}",
        )
