"""The sidecar's own settings: command-line options with ``SVC_BROWSER_*`` fallbacks."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import attrs

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}


def env_bool(value: str | None) -> bool | None:
    """Bool-like text (1/true/yes/on, 0/false/no/off); anything else is None (ignored)."""
    if value is None:
        return None
    lowered = value.strip().lower()
    return True if lowered in TRUE else False if lowered in FALSE else None


@attrs.frozen
class SidecarOptions:
    enabled: bool = True
    executable_path: str | None = None
    user_data_root: Path | None = None
    allow_no_sandbox: bool = False
    headless: bool = True

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        enabled: bool | None = None,
        executable_path: str | None = None,
        user_data_root: str | None = None,
        allow_no_sandbox: bool | None = None,
        headless: bool | None = None,
    ) -> SidecarOptions:
        env = os.environ if environ is None else environ

        def pick_bool(given: bool | None, name: str, default: bool) -> bool:
            if given is not None:
                return given
            parsed = env_bool(env.get(name))
            return default if parsed is None else parsed

        root = user_data_root or env.get("SVC_BROWSER_USER_DATA_ROOT", "").strip() or None
        return cls(
            enabled=pick_bool(enabled, "SVC_BROWSER_ENABLED", True),
            executable_path=executable_path
            or env.get("SVC_BROWSER_EXECUTABLE", "").strip()
            or None,
            user_data_root=Path(root).expanduser() if root else None,
            allow_no_sandbox=pick_bool(allow_no_sandbox, "SVC_BROWSER_ALLOW_NO_SANDBOX", False),
            headless=pick_bool(headless, "SVC_BROWSER_HEADLESS", True),
        )
