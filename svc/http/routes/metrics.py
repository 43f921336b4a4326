"""``GET /metrics``: the Prometheus text format, when metrics are on (token-gated)."""

from __future__ import annotations

from typing import Any

from quart import Blueprint

from ...errors import SvcError
from ..request import engine
from ..responses import Response

bp = Blueprint("metrics", __name__)


class MetricsDisabled(SvcError):
    """Metrics are off; set metrics_enabled (SVC_METRICS_ENABLED=1) to serve them."""

    code = "METRICS_DISABLED"
    status = 404


@bp.get("/metrics")
async def metrics() -> Any:
    registry = engine().metrics
    if registry is None:
        raise MetricsDisabled()
    from ...metrics import CONTENT_TYPE

    return Response(registry.exposition(), status=200, content_type=CONTENT_TYPE)
