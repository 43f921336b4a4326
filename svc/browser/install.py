"""``browser install``: place (or verify) the sidecar of the engine's own version.

The sidecar ships in the engine's distribution (the ``svc-browser`` console
script), so nothing is downloaded: install writes a launcher for this
interpreter's sidecar at ``browser.sidecar_path`` or ``<state dir>/binaries/svc-browser``
(where discovery looks first) and checks that it answers ``--version`` with the
engine's version, so engine and sidecar always speak the same protocol.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from .._version import __version__
from ..settings import BrowserSettings
from .discovery import version_of
from .errors import InstallFailed
from .readiness import SIDECAR_NAME

LAUNCHER_MARK = "# svc-browser launcher written by `svc-engine browser install`"
ASSET_NAME = f"{SIDECAR_NAME} (the svc-engine {__version__} distribution)"


def install_target(config: BrowserSettings, state_dir: Path) -> Path:
    if config.sidecar_path:
        return Path(config.sidecar_path).expanduser()
    return state_dir / "binaries" / SIDECAR_NAME


def launcher_text() -> str:
    return (
        f"#!{sys.executable}\n{LAUNCHER_MARK}\n"
        "import sys\n\nfrom svc.browser.sidecar.main import main\n\nsys.exit(main())\n"
    )


def _ours(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            handle.readline()
            return handle.readline().rstrip("\n") == LAUNCHER_MARK
    except OSError:
        return False


def install_sidecar(config: BrowserSettings, state_dir: Path) -> dict[str, Any]:
    """Blocking (runs the sidecar's ``--version``): call it from a worker thread."""
    target = install_target(config, state_dir)
    expected = f"{SIDECAR_NAME} {__version__}"
    if target.exists() and not _ours(target):
        found = _version(target)
        if found != expected:
            raise InstallFailed(
                f"browser_install_failed: `{target}` is not ours and reports `{found}`, not "
                f"`{expected}`; remove it or point `browser.sidecar_path` elsewhere",
                ok=False,
            )
    else:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(target.name + ".tmp")
            temporary.write_text(launcher_text(), encoding="utf-8")
            temporary.chmod(0o755)
            os.replace(temporary, target)
        except OSError as exc:
            raise InstallFailed(
                f"browser_install_failed: cannot write `{target}`: {exc.strerror}", ok=False
            ) from None
        found = _version(target)
        if found != expected:
            raise InstallFailed(
                f"browser_install_failed: the installed sidecar reports `{found}`, not "
                f"`{expected}`",
                ok=False,
            )
    return {
        "version": __version__,
        "asset_name": ASSET_NAME,
        "installed_path": str(target),
        "downloaded_bytes": 0,
    }


def _version(path: Path) -> str:
    try:
        return version_of(path)
    except (OSError, RuntimeError) as exc:
        raise InstallFailed(
            f"browser_install_failed: `{path} --version` failed: {exc}", ok=False
        ) from None
