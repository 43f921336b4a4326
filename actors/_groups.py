"""Helpers to see through the exception groups raised by our own internal nurseries."""

from __future__ import annotations

import trio


def only_cancelled(error: BaseException) -> bool:
    """True if ``error`` is a Cancelled, or a group holding nothing but Cancelled."""
    if isinstance(error, trio.Cancelled):
        return True
    if isinstance(error, BaseExceptionGroup):
        _, rest = error.split(trio.Cancelled)
        return rest is None
    return False


def unwrap_single(error: BaseException) -> BaseException:
    """Return the only member of a one-exception group, else ``error`` itself.

    Our nurseries are an implementation detail (trio wraps even a single failure in a group),
    so a lone failure is reported as itself, the way the user raised it.
    """
    # One level only: a group the user raised themselves stays theirs.
    if isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        return error.exceptions[0]
    return error


def reraise_unwrapped(group: BaseExceptionGroup[BaseException]) -> None:
    """Raise the single member of ``group`` as itself, or ``group`` when it holds several.

    Call from inside ``except BaseExceptionGroup``; the member's original ``__context__`` is
    restored so tracebacks do not show the internal group as "during handling of".
    """
    error = unwrap_single(group)
    if error is group:
        raise group
    context = error.__context__
    try:
        raise error
    finally:
        error.__context__ = context
        del error, group
