"""The collector policy of an ``svc-engine`` process while it starts.

Starting builds hundreds of thousands of long-lived objects (modules, classes,
functions, the route map) and almost no garbage, yet the cyclic collector runs
over and over while they are built: about a seventh of start-up went to
collections that found nothing. The process pauses collection while it starts,
then freezes what start-up built (``gc.freeze``: never scanned again, which also
keeps a long-running engine's full collections short) and resumes collection.

This is process-wide policy, so it belongs to the process owner (the console
script), never to ``svc.open_engine``: an embedding program decides for itself.
"""

from __future__ import annotations

import gc


def pause_collection() -> None:
    """Stop the cyclic collector until :func:`settle` (start-up work only)."""
    gc.disable()


def settle() -> None:
    """Freeze everything built so far and resume collection (once: later calls do nothing)."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
