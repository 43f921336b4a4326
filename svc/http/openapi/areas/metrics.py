"""``/metrics``: the Prometheus text format (404 ``METRICS_DISABLED`` while metrics are off)."""

from ..registry import op

OPERATIONS = {
    "metrics": op("Metrics in the Prometheus text format", media="text/plain"),
}
