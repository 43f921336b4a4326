"""Browser automation: real Chromium driven by the ``svc-browser`` sidecar, as agent tools.

The engine side (this package) owns the sidecar process through a supervised actor,
evaluates readiness, applies the network policy and offers the eleven browser tools;
the sidecar (:mod:`.sidecar`) drives Chromium over the DevTools protocol. See
docs/browser.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    # The same names, for type checkers: at run time each loads with its module.
    from .component import BrowserComponent  # noqa: F401
    from .errors import (  # noqa: F401
        BrowserError,
        InstallFailed,
        PolicyDenied,
        SessionNotFound,
        SidecarNotFound,
        SmokeTestFailed,
    )
    from .readiness import PROTOCOL_VERSION, BrowserStatus  # noqa: F401
    from .service import BrowserService  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".component": ["BrowserComponent"],
        ".errors": [
            "BrowserError",
            "InstallFailed",
            "PolicyDenied",
            "SessionNotFound",
            "SidecarNotFound",
            "SmokeTestFailed",
        ],
        ".readiness": ["PROTOCOL_VERSION", "BrowserStatus"],
        ".service": ["BrowserService"],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
