"""``/browser``: readiness, installation and a smoke test (the last two: loopback callers)."""

from ..records.system import BROWSER_INSTALL, BROWSER_SMOKE_TEST, BROWSER_STATUS
from ..registry import op

OPERATIONS = {
    "browser_status": op("Browser readiness", returns=BROWSER_STATUS),
    "browser_install": op(
        "Install the browser on this host (a direct loopback caller of the local tenant)",
        returns=BROWSER_INSTALL,
    ),
    "browser_smoke_test": op(
        "Open a page in the browser to check it works (a direct loopback caller)",
        body={"type": "object", "properties": {"url": {"type": "string"}}},
        returns=BROWSER_SMOKE_TEST,
    ),
}
