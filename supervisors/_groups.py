"""See through the exception group of a supervisor's own nursery."""

from __future__ import annotations


def reraise_unwrapped(group: BaseExceptionGroup[BaseException]) -> None:
    """Raise the single member of ``group`` as itself, or ``group`` when it holds several.

    The supervisor's nursery is an implementation detail: an error raised in the ``async with``
    block, a child's start failure or a SupervisorEscalation comes out as the exception itself,
    not wrapped in a one-member group. Call from inside ``except BaseExceptionGroup``; the
    member's original ``__context__`` is restored so tracebacks do not show the group as
    "during handling of".
    """
    if len(group.exceptions) != 1:
        raise group
    error = group.exceptions[0]
    context = error.__context__
    try:
        raise error
    finally:
        error.__context__ = context
        del error, group
