"""Finding the sidecar and the browser on this host, and asking their versions.

An explicit path (configuration or environment) is authoritative: if it names
nothing, the thing is reported missing rather than silently replaced by
another one found elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import attrs

from .readiness import SIDECAR_NAME

BROWSER_NAMES = (
    "google-chrome",
    "google-chrome-stable",
    "chromium",
    "chromium-browser",
    "microsoft-edge",
    "microsoft-edge-stable",
    "brave-browser",
    "brave",
)


@attrs.frozen
class Found:
    found: bool
    path: str | None = None
    version: str | None = None
    channel: str | None = None

    def to_wire(self) -> dict[str, object]:
        wire: dict[str, object] = {"found": self.found}
        for key in ("path", "version", "channel"):
            value = getattr(self, key)
            if value is not None:
                wire[key] = value
        return wire


def _file(path: Path) -> Path | None:
    try:
        return path.resolve() if path.is_file() else None
    except OSError:
        return None


def find_sidecar(explicit: str | None, state_dir: Path | None) -> Path | None:
    """Explicit path; ``<state dir>/binaries/svc-browser``; next to this interpreter's
    scripts (where the distribution installed it), then ``..``, ``../..``; PATH."""
    if explicit:
        return _file(Path(explicit).expanduser())
    candidates: list[Path] = []
    if state_dir is not None:
        candidates.append(state_dir / "binaries" / SIDECAR_NAME)
    scripts = Path(sys.executable).parent
    candidates += [scripts / SIDECAR_NAME, scripts.parent / SIDECAR_NAME]
    candidates.append(scripts.parent.parent / SIDECAR_NAME)
    for candidate in candidates:
        if (found := _file(candidate)) is not None:
            return found
    on_path = shutil.which(SIDECAR_NAME)
    return Path(on_path) if on_path else None


def find_browser(explicit: str | None) -> Path | None:
    if explicit:
        return _file(Path(explicit).expanduser())
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


def channel_of(path: Path) -> str:
    name = path.name.lower()
    if "edge" in name:
        return "edge"
    if "brave" in name:
        return "brave"
    if "chromium" in name:
        return "chromium"
    return "chrome"


def version_of(path: Path, *, timeout: float = 20.0) -> str:
    """``<path> --version`` (its first stdout line). OSError or RuntimeError when it fails."""
    try:
        done = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"`{path} --version` did not answer in {timeout:g} s") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        detail = (done.stderr or done.stdout).strip()[:200]
        raise RuntimeError(f"exit status {done.returncode}: {detail}")
    return lines[-1].strip()
