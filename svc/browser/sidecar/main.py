"""``svc-browser``: the browser sidecar's command line (``--version``, ``doctor``, ``serve``)."""

from __future__ import annotations

import argparse
import json
import sys

import trio

from ..._version import __version__
from ..readiness import SIDECAR_NAME, BrowserStatus
from .options import SidecarOptions, env_bool


def _bool_arg(text: str) -> bool:
    parsed = env_bool(text)
    if parsed is None:
        raise argparse.ArgumentTypeError(f"expected a boolean, got `{text}`")
    return parsed


def _browser_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--executable-path")
    parser.add_argument("--user-data-root")
    parser.add_argument("--allow-no-sandbox", nargs="?", const=True, default=None, type=_bool_arg)
    parser.add_argument("--headless", nargs="?", const=True, default=None, type=_bool_arg)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog=SIDECAR_NAME, description="The svc-engine browser sidecar.")
    top.add_argument("--version", "-V", action="version", version=f"{SIDECAR_NAME} {__version__}")
    commands = top.add_subparsers(dest="command", required=True)
    doctor = commands.add_parser("doctor", help="browser readiness diagnostics")
    doctor.add_argument("--enabled", type=_bool_arg, default=None)
    doctor.add_argument("--json", action="store_true")
    _browser_options(doctor)
    serve = commands.add_parser("serve", help="serve JSON-RPC to the engine")
    serve.add_argument("--transport", default="stdio")
    _browser_options(serve)
    return top


def _options(args: argparse.Namespace) -> SidecarOptions:
    return SidecarOptions.from_env(
        enabled=getattr(args, "enabled", None),
        executable_path=args.executable_path,
        user_data_root=args.user_data_root,
        allow_no_sandbox=args.allow_no_sandbox,
        headless=args.headless,
    )


def text_report(status: BrowserStatus) -> str:
    browser = status.browser
    sidecar = status.sidecar
    lines = [
        "Browser readiness",
        f"  Enabled: {status.enabled}",
        f"  Runnable: {status.runnable}",
        f"  Sidecar: {sidecar.get('path') or 'not found'}",
        f"  Browser: {browser.get('path') or 'not found'}",
        f"  Browser version: {browser.get('version') or 'unknown'}",
        "  Blocking issues:" + ("" if status.blocking_issues else " none"),
        *(f"    - {i.code}: {i.message}" for i in status.blocking_issues),
    ]
    if status.recommendations:
        lines += ["  Recommendations:", *(f"    - {x}" for x in status.recommendations)]
    if status.install_hints:
        lines += ["  Install hints:", *(f"    - {x}" for x in status.install_hints)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    options = _options(args)
    if args.command == "doctor":
        from .doctor import doctor

        status = trio.run(doctor, options)
        status = BrowserStatus.from_wire(
            {
                **status.to_wire(),
                "sidecar": {
                    "found": True,
                    "path": sys.argv[0],
                    "version": f"{SIDECAR_NAME} {__version__}",
                },
            }
        )
        print(json.dumps(status.to_wire(), indent=2) if args.json else text_report(status))
        return 0
    if args.transport != "stdio":
        print(f"{SIDECAR_NAME}: unsupported transport `{args.transport}`", file=sys.stderr)
        return 2
    from .server import serve_stdio

    trio.run(serve_stdio, options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
