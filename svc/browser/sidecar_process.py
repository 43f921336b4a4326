"""How the engine starts the sidecar: which file, which arguments, which environment.

The configuration is authoritative for the browser settings the sidecar uses:
``SVC_BROWSER_*`` variables inherited from the engine's own environment are
replaced by the configured values, so a caller cannot choose them.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..settings import BrowserSettings
from .actor import SidecarCommand, sidecar_argv


def sidecar_env(config: BrowserSettings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SVC_BROWSER_")}
    if config.executable_path:
        env["SVC_BROWSER_EXECUTABLE"] = config.executable_path
    if config.user_data_root:
        env["SVC_BROWSER_USER_DATA_ROOT"] = config.user_data_root
    env["SVC_BROWSER_ALLOW_NO_SANDBOX"] = "true" if config.allow_no_sandbox else "false"
    env["SVC_BROWSER_HEADLESS"] = "true" if config.headless_default else "false"
    return env


def sidecar_command(path: Path, config: BrowserSettings) -> SidecarCommand:
    return SidecarCommand(sidecar_argv(str(path)), sidecar_env(config))
