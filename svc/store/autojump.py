"""Whether the loop runs under an autojumping MockClock (tests), for the backends' waits.

A task waiting for a worker thread looks idle to trio, and an autojumping
MockClock would then leap to the next deadline (an ask timeout, a test's
fail_after) while the database is still working. Under such a clock a backend's
caller yields in a loop until its work is done, so virtual time only moves when
the engine is really idle; with the real clock it waits plainly.
"""

from __future__ import annotations

import math

import trio


def autojumping() -> bool:
    """True under a MockClock with a finite autojump threshold (see the module docstring)."""
    # Duck-typed on purpose: importing trio.testing would import pytest into every
    # engine process, which costs a noticeable share of start-up.
    threshold = getattr(trio.lowlevel.current_clock(), "autojump_threshold", None)
    return threshold is not None and threshold != math.inf


__all__ = ["autojumping"]
