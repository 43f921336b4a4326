"""``/browser``: readiness, installation and a smoke test (the last two: loopback callers)."""

from ..registry import OBJECT, op

OPERATIONS = {
    "browser_status": op("Browser readiness", returns=OBJECT),
    "browser_install": op(
        "Install the browser on this host (a direct loopback caller of the local tenant)",
        returns=OBJECT,
    ),
    "browser_smoke_test": op(
        "Open a page in the browser to check it works (a direct loopback caller)",
        body={"type": "object", "properties": {"url": {"type": "string"}}},
        returns=OBJECT,
    ),
}
