"""The publish pipeline (reference §1.15): route, gate, re-check readiness, deliver.

Better than the reference: a publish goes to every destination the winning route
(or the request) selects, each with its own readiness re-check, receipt, audit row
and outcome. A destination that fails the re-check gets the audit event
``destination_not_ready`` and no receipt; the others still deliver.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..audit.ledger import AuditEntry, sanitize
from .destinations import Delivery, DeliveryContext, adapter_for
from .errors import IncidentError, bad_request, conflict, not_found
from .fingerprints import evidence_digest, idempotency_key
from .readiness import destination_readiness
from .receipts import audit_base, build_post, delivered_event
from .records import Draft, Incident, Post
from .routing import RouteContext, RouteMatch, build_context, match_routes

if TYPE_CHECKING:
    from .service import IncidentService

MODES = ("auto", "recovery", "manual", "recheck")


@attrs.frozen
class _Plan:
    context: RouteContext
    match: RouteMatch
    digest: str
    targets: dict[str, tuple[str, str]]
    """destination id -> (target ref, idempotency key), for configured destinations."""


def _publish_failed(message: str, draft: Draft | None, **extra: Any) -> IncidentError:
    return bad_request(
        "DRAFT_PUBLISH_FAILED",
        message,
        detail=message,
        draft_id=draft.draft_id if draft else None,
        draft=draft.to_wire() if draft else None,
        **extra,
    )


class Publisher:
    def __init__(self, service: IncidentService) -> None:
        self.service = service

    async def publish(
        self, draft_id: str, requested: Sequence[str] = (), *, mode: str = "manual"
    ) -> dict[str, Any]:
        async with self.service.serial.turn(draft_id):
            return await self._publish(draft_id, requested, mode)

    def _plan(
        self, requested: Sequence[str], draft: Draft, incident: Incident | None
    ) -> tuple[_Plan, list[str]]:
        """Route, digest and idempotency keys of a publish (pure: runs in the read)."""
        config = self.service.config
        layers = [draft.doc, *([incident.doc] if incident else [])]
        context = build_context(config, layers, trusted=True)
        match = match_routes(config, context, requested)[0]
        digest = evidence_digest(
            draft.repo, draft.fingerprint, draft.text("title"), draft.text("detail")
        )
        targets: dict[str, tuple[str, str]] = {}
        for destination_id in match.destination_ids:
            destination = config.destination(destination_id)
            if destination is None:
                continue  # reported by _plan_problems
            adapter = adapter_for(destination.kind)
            target = adapter.target_ref(config, destination)
            key = idempotency_key(
                destination_id,
                adapter.kind_tag,
                target,
                draft.fingerprint,
                adapter.operation,
                digest,
            )
            targets[destination_id] = (target, key)
        plan = _Plan(context=context, match=match, digest=digest, targets=targets)
        return plan, [key for _, key in targets.values()]

    async def _publish(self, draft_id: str, requested: Sequence[str], mode: str) -> dict[str, Any]:
        service = self.service
        config = service.config
        # One read: the draft, its incident and the receipts of every key this publish
        # could repeat. Writes are batched the same way: the attempt's audit row and any
        # refusal rows wait in `pending` and commit with the next receipt or the outcome.
        inputs = await service.drafts.publish_inputs(
            draft_id, functools.partial(self._plan, tuple(requested))
        )
        if inputs is None:
            raise not_found("DRAFT_NOT_FOUND", f"draft `{draft_id}` not found", draft_id=draft_id)
        draft, incident, plan = inputs.draft, inputs.incident, inputs.plan
        if draft.status == "denied":
            raise conflict("DRAFT_DENIED", "a denied draft cannot be published", draft_id=draft_id)
        match, context = plan.match, plan.context
        # Sanitized once: every audit row of this publish extends the same base.
        base = sanitize(audit_base(draft, incident, match, requested, mode))
        pending = [self._entry("incident_monitor.publish.attempted", base, draft_id)]
        problems = self._plan_problems(match, context.allowed_destination_ids)
        if not config.enabled:
            problems.append("Incident Monitor is disabled")
        elif config.paused and mode in ("auto", "recovery"):
            problems.append("Incident Monitor is paused")
        gate = functools.partial(
            service.decisions.record,
            domain="publish_gate",
            subject=f"draft:{draft_id}",
            actor_id=f"incident_monitor:{mode}",
            scope_id=draft_id,
            tenant_id=context.get("tenant_id"),
            workspace_id=context.get("workspace_id"),
        )
        if problems:
            gate(effect="deny", code="validation_failed", reason="; ".join(problems))
            pending.append(self._failed_entry(base, "validation_failed", problems))
            await service.ledger.record_all(pending)
            raise _publish_failed("; ".join(problems), draft)
        if mode != "recheck" and (
            draft.status == "approval_required"
            or (match.approval_required and not draft.get("approval_granted_at_ms"))
        ):
            draft = draft.evolve(
                status="approval_required",
                github_status="approval_required",
                updated_at_ms=service.now_ms(),
            )
            stored = await service.drafts.save_outcome(draft, None, audits=pending)
            service.ledger.announce_all(stored)
            gate(effect="approval_required", approval_id=draft_id)
            return {
                "ok": True,
                "draft": draft.to_wire(),
                "action": "approval_required",
                "outcomes": [],
                "posts": [],
                "post": None,
            }
        if mode != "recheck":
            gate(
                effect="allow",
                approval_id=draft_id if draft.get("approval_granted_at_ms") else None,
            )
        outcomes: list[dict[str, Any]] = []
        posts: list[Post] = []
        unsaved: list[Post] = []
        last_index = len(match.destination_ids) - 1
        for index, destination_id in enumerate(match.destination_ids):
            outcome, post = await self._deliver_one(
                draft, incident, plan, destination_id, inputs.earlier, mode, base, pending
            )
            outcomes.append(outcome)
            if post is None:
                continue
            posts.append(post)
            if index == last_index:
                unsaved.append(post)
            else:
                # Not the last destination: commit this receipt now, so a crash before the
                # others are done still leaves the receipt of what was delivered.
                service.ledger.announce_all(await service.posts.save(post, audits=pending))
                pending = []
        delivered = [o for o in outcomes if o["ok"]]
        now = service.now_ms()
        last = (delivered or outcomes)[-1]
        changes: dict[str, Any] = {
            "evidence_digest": plan.digest,
            "updated_at_ms": now,
            "github_status": last["draft_status"],
        }
        if mode != "recheck":
            changes["status"] = last["draft_status"]
        if delivered:
            changes.update(github_posted_at_ms=now, last_post_error=None)
            url = next((o.get("external_url") for o in delivered if o.get("external_url")), None)
            if url:
                changes["github_issue_url"] = url
        else:
            changes["last_post_error"] = "; ".join(o.get("error") or "" for o in outcomes)[:500]
        draft = draft.evolve(**changes)
        ended = (
            incident.evolve(status=last["action"], updated_at_ms=now)
            if incident is not None and mode != "recheck"
            else None
        )
        # the last receipt, the draft's outcome and every audit row still pending: one write
        stored = await service.drafts.save_outcome(draft, ended, posts=unsaved, audits=pending)
        service.ledger.announce_all(stored)
        self._announce_deliveries(draft, outcomes)
        wires = [p.to_wire() for p in posts]
        if not delivered:
            raise _publish_failed(
                "no destination accepted the delivery: "
                + "; ".join(f"{o['destination_id']}: {o.get('error')}" for o in outcomes),
                draft,
                outcomes=outcomes,
                posts=wires,
            )
        first = wires[0] if wires else None
        return {
            "ok": True,
            "draft": draft.to_wire(),
            "action": delivered[0]["action"] if len(delivered) == 1 else "multi_destination",
            "outcomes": outcomes,
            "posts": wires,
            "post": first,
            "post_id": first["post_id"] if first else None,
            "issue_number": delivered[0].get("issue_number"),
            "issue_url": delivered[0].get("external_url"),
            "comment_id": delivered[0].get("comment_id"),
            "comment_url": delivered[0].get("comment_url"),
        }

    def _announce_deliveries(self, draft: Draft, outcomes: list[dict[str, Any]]) -> None:
        for outcome in outcomes:
            if outcome["ok"] and outcome.get("post_id"):
                self.service.publish_event(
                    delivered_event(outcome["kind"]),
                    {
                        "draft_id": draft.draft_id,
                        "destination_id": outcome["destination_id"],
                        "post_id": outcome["post_id"],
                        "action": outcome["action"],
                    },
                )

    def _plan_problems(self, match: RouteMatch, allowed: Sequence[str]) -> list[str]:
        config = self.service.config
        if not match.destination_ids:
            return ["Incident Monitor destination router found no destination"]
        problems = []
        for destination_id in match.destination_ids:
            if config.destination(destination_id) is None:
                problems.append(f"Destination `{destination_id}` is not configured")
            elif allowed and destination_id not in allowed:
                problems.append(f"Destination `{destination_id}` is not allowed by source binding")
        return problems

    def _entry(
        self, type: str, base: dict[str, Any], draft_id: str | None, **extra: Any
    ) -> AuditEntry:
        """An audit row: ``base`` is sanitized already, ``extra`` is sanitized here."""
        return self.service.ledger.entry(
            type,
            {**base, **sanitize(extra)},
            domain="incident_monitor",
            subject=draft_id,
            sanitized=True,
        )

    def _failed_entry(self, base: dict[str, Any], action: str, reasons: list[str]) -> AuditEntry:
        return self._entry(
            "incident_monitor.publish.failed",
            base,
            base.get("draft_id"),
            action=action,
            blocked=True,
            blocked_reasons=reasons,
        )

    async def _deliver_one(
        self,
        draft: Draft,
        incident: Incident | None,
        plan: _Plan,
        destination_id: str,
        earlier_by_key: dict[str, list[Post]],
        mode: str,
        base: dict[str, Any],
        pending: list[AuditEntry],
    ) -> tuple[dict[str, Any], Post | None]:
        """Deliver to one destination; audit rows go to ``pending``, the receipt is returned
        unsaved (the caller commits it with the next write)."""
        service = self.service
        config = service.config
        match = plan.match
        destination = config.destination(destination_id)
        assert destination is not None  # checked by _plan_problems
        outcome: dict[str, Any] = {"destination_id": destination_id, "kind": destination.kind}
        readiness = destination_readiness(
            config,
            destination,
            servers=service.server_view,
            environ=service.engine.settings.environ,
        )
        blocks = mode in ("auto", "manual") or (
            mode == "recovery" and config.safety_defaults.block_unready_destinations
        )
        if not readiness.ready and blocks:
            reasons = list(readiness.missing)
            payload = {**base, **sanitize({"destination_id": destination_id})}
            payload["kind"] = destination.kind
            service.decisions.record(
                domain="publish_gate",
                effect="deny",
                subject=f"destination:{destination_id}",
                actor_id=f"incident_monitor:{mode}",
                scope_id=draft.draft_id,
                code="destination_not_ready",
            )
            pending.append(self._failed_entry(payload, "destination_not_ready", reasons))
            # The spec's audit event of its own name, beside the publish.failed row.
            pending.append(
                self._entry("destination_not_ready", payload, draft.draft_id, missing=reasons)
            )
            outcome.update(
                ok=False,
                action="destination_not_ready",
                draft_status="publish_blocked",
                error=f"destination `{destination_id}` is not publish-ready: " + ", ".join(reasons),
            )
            return outcome, None
        adapter = adapter_for(destination.kind)
        target, key = plan.targets[destination_id]
        earlier = earlier_by_key.get(key, [])
        if any(p.status == "posted" for p in earlier):
            done = next(p for p in earlier if p.status == "posted")
            outcome.update(
                ok=True,
                action="skip_duplicate",
                draft_status=draft.get("github_status") or draft.status,
                post_id=done.post_id,
                external_url=done.get("external_url"),
                skipped=True,
            )
            return outcome, None
        if mode == "recheck":
            outcome.update(ok=True, action="no_match", draft_status=draft.status)
            return outcome, None
        # A retry after a failed delivery reuses its delivery id (and the same key).
        delivery_id = (
            next(
                (p.text("external_id") for p in reversed(earlier) if p.text("external_id")),
                None,
            )
            or f"svcwh_{uuid.uuid4().hex}"
        )
        recurrence = 1
        if destination.kind == "internal_memory":
            # only the memory summary reports how often the pattern was stored before
            recurrence += sum(
                1
                for p in await service.posts.page(limit=200, destination_id=destination_id)
                if p.get("fingerprint") == draft.fingerprint and p.status == "posted"
            )
        ctx = DeliveryContext(
            service=service,
            config=config,
            destination=destination,
            draft=draft,
            incident=incident,
            match=match,
            evidence_digest=plan.digest,
            idempotency_key=key,
            delivery_id=delivery_id,
            target_ref=target,
            recurrence_count=recurrence,
        )
        try:
            delivery = await adapter.deliver(ctx)
        except Exception as exc:  # an adapter bug must not lose the receipt of the attempt
            delivery = Delivery(
                ok=False,
                action=adapter.operation,
                draft_status=f"{destination.kind}_failed",
                receipt={"provider": destination.kind, "status": "failed"},
                error=f"{type(exc).__name__}: {exc}"[:500],
            )
        post = build_post(
            service.now_ms(),
            draft,
            incident,
            match,
            destination,
            adapter.operation,
            key,
            plan.digest,
            target,
            delivery,
        )
        action = "publish.completed" if delivery.ok else "publish.failed"
        pending.append(
            self._entry(
                f"incident_monitor.{action}",
                base,
                draft.draft_id,
                destination_id=destination_id,
                kind=destination.kind,
                post_id=post.post_id,
                status=post.status,
                action=delivery.action if delivery.ok else "adapter_failed",
                detail=delivery.error,
            )
        )
        outcome.update(
            ok=delivery.ok,
            action=delivery.action,
            draft_status=delivery.draft_status,
            post_id=post.post_id,
            error=delivery.error,
            external_url=delivery.external_url,
            issue_number=delivery.issue_number,
            comment_id=delivery.comment_id,
            comment_url=delivery.comment_url,
            status_code=delivery.receipt.get("status_code"),
        )
        return outcome, post
