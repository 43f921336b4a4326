"""Errors a unit of work may see, whatever the backend."""

from __future__ import annotations

from ..errors import PersistenceFailed


class IntegrityError(PersistenceFailed):
    """A statement broke a constraint (a duplicate key, a missing foreign row).

    Repositories that expect one (an idempotent insert racing another) catch it
    inside their unit of work; one that escapes aborts the transaction.
    """

    code = "PERSISTENCE_FAILED"
    retryable = False


__all__ = ["IntegrityError"]
