"""Prometheus metrics (``GET /metrics``), on when ``metrics_enabled`` (``SVC_METRICS_ENABLED=1``).

The client library is imported only when metrics are on: an engine without them pays
nothing at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .families import CONTENT_TYPE, Metrics  # noqa: F401
    from .recorder import record_events  # noqa: F401

_exports = LazyExports(
    __name__,
    {".families": ["CONTENT_TYPE", "Metrics"], ".recorder": ["record_events"]},
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
