"""How often and how patiently a provider request is retried.

The retrying itself is :mod:`svc.providers.transport`.

A module of its own because the registry builds its policy at start-up, long
before the first request needs the transport and the chat types.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class RetryPolicy:
    attempts: int = 3
    base_delay: float = 0.3
    """Seconds; attempt ``n`` waits ``base_delay * n`` before the next one."""
    max_retry_after: float = 10.0
    """Cap on an upstream ``Retry-After`` we are willing to honor."""


__all__ = ["RetryPolicy"]
