"""The readiness record (``BrowserStatus``) and the wording of its issues.

Shared by the sidecar's doctor (browser checks) and the engine's evaluation
(which adds the sidecar check), so both say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

PROTOCOL_VERSION = "1"
SIDECAR_NAME = "svc-browser"


@attrs.frozen
class Issue:
    code: str
    message: str

    def to_wire(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@attrs.frozen
class BrowserStatus:
    """Can browser tools run here, and if not, why not and what to do."""

    enabled: bool
    runnable: bool = False
    headless_default: bool = True
    sidecar: Mapping[str, Any] = attrs.field(factory=lambda: {"found": False})
    browser: Mapping[str, Any] = attrs.field(factory=lambda: {"found": False})
    blocking_issues: tuple[Issue, ...] = ()
    recommendations: tuple[str, ...] = ()
    install_hints: tuple[str, ...] = ()
    last_checked_at_ms: int | None = None
    last_error: str | None = None

    @property
    def codes(self) -> list[str]:
        return [issue.code for issue in self.blocking_issues]

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "enabled": self.enabled,
            "runnable": self.runnable,
            "headless_default": self.headless_default,
            "sidecar": dict(self.sidecar),
            "browser": dict(self.browser),
            "blocking_issues": [issue.to_wire() for issue in self.blocking_issues],
            "recommendations": list(self.recommendations),
            "install_hints": list(self.install_hints),
        }
        if self.last_checked_at_ms is not None:
            wire["last_checked_at_ms"] = self.last_checked_at_ms
        if self.last_error is not None:
            wire["last_error"] = self.last_error
        return wire

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any]) -> BrowserStatus:
        return cls(
            enabled=bool(wire.get("enabled")),
            runnable=bool(wire.get("runnable")),
            headless_default=bool(wire.get("headless_default", True)),
            sidecar=dict(wire.get("sidecar") or {"found": False}),
            browser=dict(wire.get("browser") or {"found": False}),
            blocking_issues=tuple(
                Issue(str(i.get("code")), str(i.get("message", "")))
                for i in wire.get("blocking_issues") or ()
            ),
            recommendations=tuple(wire.get("recommendations") or ()),
            install_hints=tuple(wire.get("install_hints") or ()),
            last_checked_at_ms=wire.get("last_checked_at_ms"),
            last_error=wire.get("last_error"),
        )

    def blocked(
        self,
        issue: Issue,
        recommendations: Sequence[str] = (),
        hints: Sequence[str] = (),
    ) -> BrowserStatus:
        """This status with one more blocking issue (and so not runnable)."""
        return attrs.evolve(
            self,
            runnable=False,
            blocking_issues=(*self.blocking_issues, issue),
            recommendations=(*self.recommendations, *recommendations),
            install_hints=(*self.install_hints, *hints),
        )


DISABLED = Issue("disabled_by_config", "Browser automation is disabled by configuration.")
DISABLED_HELP = "Set `browser.enabled=true` to enable browser automation."

BROWSER_NOT_FOUND = Issue(
    "browser_not_found", "No compatible Chromium-based browser executable was found."
)
BROWSER_NOT_FOUND_HELP = (
    "Install Chrome, Chromium, Edge, or Brave on the same machine as svc-engine.",
    "Set `SVC_BROWSER_EXECUTABLE` or `browser.executable_path` if the browser is installed "
    "in a non-standard location.",
)

SIDECAR_NOT_FOUND = Issue(
    "browser_sidecar_not_found", "The svc-browser sidecar binary was not found on this host."
)
SIDECAR_NOT_FOUND_HELP = (
    "Install or bundle `svc-browser` (`svc-engine browser install`), or set "
    "`SVC_BROWSER_SIDECAR` / `browser.sidecar_path`.",
)

SANDBOX_UNAVAILABLE = Issue(
    "sandbox_unavailable",
    "Chromium launch failed because sandbox support is unavailable on this host.",
)
SANDBOX_HELP = (
    "Chromium cannot use its sandbox here (for example as root in a container): set "
    "`browser.allow_no_sandbox=true` (or `SVC_BROWSER_ALLOW_NO_SANDBOX=true`) if the host "
    "is trusted.",
)
MISSING_LIBRARIES = Issue(
    "missing_shared_libraries", "Chromium is installed, but required shared libraries are missing."
)
NOT_EXECUTABLE = Issue(
    "browser_not_executable", "Configured browser path exists, but is not executable."
)
DOCTOR_HELP = "Run `svc-browser doctor --json` on the host to inspect full browser readiness."


def launch_failure(error: str) -> tuple[Issue, tuple[str, ...]]:
    """Classify a failed launch: the issue and what to recommend."""
    lowered = error.lower()
    if "sandbox" in lowered:
        return SANDBOX_UNAVAILABLE, SANDBOX_HELP
    if "shared librar" in lowered or "error while loading" in lowered:
        return MISSING_LIBRARIES, (DOCTOR_HELP,)
    if "permission denied" in lowered:
        return NOT_EXECUTABLE, (DOCTOR_HELP,)
    return Issue("browser_launch_failed", f"Failed to launch Chromium: {error[:220]}"), (
        DOCTOR_HELP,
    )


def install_hints() -> tuple[str, ...]:
    """How to install a browser on this Linux distribution."""
    distro = _os_release_id()
    if distro in ("debian", "ubuntu"):
        return (
            "Install Chromium or Chrome with apt, then set SVC_BROWSER_EXECUTABLE if needed.",
            "Example: sudo apt update && sudo apt install -y chromium",
        )
    if distro in ("fedora", "rhel", "centos"):
        return ("Example: sudo dnf install -y chromium",)
    if distro in ("arch", "manjaro"):
        return ("Example: sudo pacman -S chromium",)
    if distro == "alpine":
        return ("Example: sudo apk add chromium",)
    return ("Install Chromium or Google Chrome with your distribution's package manager.",)


def _os_release_id() -> str:
    try:
        with open("/etc/os-release", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("ID="):
                    return line.partition("=")[2].strip().strip('"').lower()
    except OSError:
        pass
    return ""
