"""Errors of browser automation, each with a stable snake_case code.

Tools never raise them to the model: they become ``{ok: false, code, message}``
results. Routes render them as usual (``code``, ``error``).
"""

from __future__ import annotations

import re

from ..errors import SvcError

_CODE_PREFIX = re.compile(r"^([a-z0-9_]+):\s*")


class BrowserError(SvcError):
    code = "browser_error"
    status = 500

    @classmethod
    def from_message(cls, message: str) -> BrowserError:
        """A sidecar message: its code is the ``snake_case:`` prefix, if there is one."""
        found = _CODE_PREFIX.match(message)
        return cls(message, code=found.group(1) if found else "browser_error")


class SidecarNotFound(BrowserError):
    code = "browser_sidecar_not_found"

    @classmethod
    def default_message(cls) -> str:
        return (
            "browser_sidecar_not_found: install it (`svc-engine browser install`), set "
            "`SVC_BROWSER_SIDECAR`, or `browser.sidecar_path`"
        )


class SidecarClosed(BrowserError):
    """The sidecar's stdout ended (it exited or was killed): respawn and retry once."""

    code = "browser_sidecar_closed"


class SessionNotFound(BrowserError):
    code = "browser_session_not_found"
    status = 404


class PolicyDenied(BrowserError):
    """The network policy refused a URL (the code says which rule)."""

    status = 403


class InstallFailed(BrowserError):
    code = "browser_install_failed"


class SmokeTestFailed(BrowserError):
    code = "browser_smoke_test_failed"
