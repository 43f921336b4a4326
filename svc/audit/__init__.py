"""The append-only audit ledger every domain writes its governed actions to.

A row is written in one call (:meth:`AuditLedger.record`) or inside the caller's own
transaction (:func:`append_entry`), redacted before it is stored, chained to the row
before it by hash, and announced as an event after it commits. Nothing updates or
deletes a row (the table refuses both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .ledger import AuditEntry, AuditLedger, sanitize  # noqa: F401
    from .repository import append_entry, verify_chain  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".ledger": ["AuditEntry", "AuditLedger", "sanitize"],
        ".repository": ["append_entry", "verify_chain"],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
