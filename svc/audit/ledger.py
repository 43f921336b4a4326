"""Audit entries, their redaction, and the ledger front door."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ..logs import REDACTED, is_secret_name, scrub

if TYPE_CHECKING:
    from ..clock import Clock
    from ..events import EventLog
    from ..store import Store

MAX_STRING = 2000
MAX_ITEMS = 100
MAX_DEPTH = 8


@attrs.frozen
class AuditEntry:
    entry_id: str
    type: str
    """The audited action, e.g. ``incident_monitor.config.updated``."""
    domain: str
    """The domain that wrote it (``incident_monitor``); ledger queries filter by it."""
    payload: Mapping[str, Any]
    created_at_ms: int
    actor: str | None = None
    subject: str | None = None
    """The object acted on (a draft id, a key id)."""
    seq: int | None = None
    prev_hash: str = ""
    hash: str = ""

    def to_wire(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "entry_id": self.entry_id,
            "type": self.type,
            "domain": self.domain,
            "actor": self.actor,
            "subject": self.subject,
            "payload": dict(self.payload),
            "created_at_ms": self.created_at_ms,
            "hash": self.hash,
        }


@functools.lru_cache(maxsize=4096)
def _credential_name(name: str) -> bool:
    # Memoized: an audit row's keys are mostly the same few dozen names, and the name
    # pattern was a good share of a publish's audit cost. Bounded, so a flood of
    # distinct keys costs memory only up to the bound.
    return is_secret_name(name) and not name.endswith("_present")


def sanitize(value: Any, name: str = "", depth: int = 0) -> Any:
    """A bounded copy of ``value`` safe for the ledger.

    Credential-named fields are replaced, registered secrets scrubbed from strings,
    nesting, lists and strings cut: an audit row describes an action, it never
    carries the material the action moved.
    """
    if name and _credential_name(name) and value not in (None, "", {}, [], False):
        return REDACTED
    if depth > MAX_DEPTH:
        return "[truncated]"
    if isinstance(value, Mapping):
        items = list(value.items())[:MAX_ITEMS]
        return {str(k): sanitize(v, str(k), depth + 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [sanitize(v, "", depth + 1) for v in list(value)[:MAX_ITEMS]]
    if isinstance(value, str):
        return scrub(value)[:MAX_STRING]
    return value


class AuditLedger:
    """Writes redacted rows and announces each as an event on the ``audit`` topic."""

    def __init__(self, store: Store, events: EventLog | None, clock: Clock) -> None:
        self.store = store
        self.events = events
        self.clock = clock

    def entry(
        self,
        type: str,
        payload: Mapping[str, Any],
        *,
        domain: str,
        actor: str | None = None,
        subject: str | None = None,
        sanitized: bool = False,
    ) -> AuditEntry:
        """A redacted entry, ready for :func:`~svc.audit.append_entry` in a caller's transaction.

        ``sanitized``: the payload was built from :func:`sanitize` output already (a caller
        writing several rows over one base sanitizes it once)."""
        return AuditEntry(
            entry_id=f"audit-{uuid.uuid4().hex}",
            type=type,
            domain=domain,
            payload=dict(payload) if sanitized else sanitize(dict(payload)),
            created_at_ms=self.clock.now_ms(),
            actor=actor,
            subject=subject,
        )

    async def record(
        self,
        type: str,
        payload: Mapping[str, Any],
        *,
        domain: str,
        actor: str | None = None,
        subject: str | None = None,
    ) -> AuditEntry:
        from .repository import append_entry

        entry = await self.store.write(
            append_entry, self.entry(type, payload, domain=domain, actor=actor, subject=subject)
        )
        self.announce(entry)
        return entry

    async def record_all(self, entries: Sequence[AuditEntry]) -> list[AuditEntry]:
        """Append prepared entries (:meth:`entry`) in one transaction, then announce them."""
        from .repository import append_entries

        stored = await self.store.write(append_entries, list(entries))
        self.announce_all(stored)
        return stored

    def announce_all(self, entries: Sequence[AuditEntry]) -> None:
        for entry in entries:
            self.announce(entry)

    def announce(self, entry: AuditEntry) -> None:
        """Publish the committed entry (call after the transaction that wrote it)."""
        if self.events is not None:
            self.events.publish(
                entry.type,
                {**entry.payload, "audit": True, "audit_entry_id": entry.entry_id},
                topic="audit",
            )

    async def entries(
        self, *, domain: str | None = None, type: str | None = None, limit: int = 100
    ) -> list[AuditEntry]:
        """Newest first."""
        from .repository import read_entries

        return await self.store.read(read_entries, domain, type, limit)

    async def verify(self) -> bool:
        """True when every row's hash covers its content and its predecessor's hash."""
        from .repository import verify_chain

        return await self.store.read(verify_chain)
