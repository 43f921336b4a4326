"""Give the process's freed heap memory back to the operating system, now and then.

A long-running engine allocates and frees a steady stream of short-lived buffers
(request and response bodies, event batches, query results) from several threads.
glibc's allocator keeps freed chunks for reuse and gives memory back to the system
only from the top of a heap, so the free fragments between live allocations stay in
the resident size: in the 10-minute soak the heap's free part grew from 8 MB to 17 MB
in three minutes while the live Python objects stayed flat, and the RSS grew by
30-odd MB (docs/performance.md, Soak). ``malloc_trim(0)`` also releases the whole
free pages inside the heaps (fragments smaller than a page stay). It runs every
``heap_trim_interval_s`` on a worker thread (it holds the allocator's lock for a few
milliseconds, which must not stall the loop).
Where the C library has no ``malloc_trim`` (musl, macOS) there is nothing to do.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Callable

import trio

log = logging.getLogger("svc.heap")


def heap_trimmer() -> Callable[[], int] | None:
    """glibc's ``malloc_trim(0)``, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: int(trim(0))


async def trim_heap_periodically(interval_s: float) -> None:
    """Trim every ``interval_s`` seconds until cancelled (0: never)."""
    if interval_s <= 0:
        return
    trim = heap_trimmer()
    if trim is None:
        return
    while True:
        await trio.sleep(interval_s)
        # abandon_on_cancel: a trim in progress finishes by itself; shutdown need not wait.
        released = await trio.to_thread.run_sync(trim, abandon_on_cancel=True)
        log.debug("heap trimmed", extra={"released": bool(released)})


__all__ = ["heap_trimmer", "trim_heap_periodically"]
