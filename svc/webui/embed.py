"""The web application embedded in the engine at ``{base_url}{prefix}`` (``--web-ui``).

Only ``GET``/``HEAD`` of the shell and of the application's own files are
public, and only at their exact paths: the set is finite and compared with the
request's *raw* path, so ``/administrator``, ``/admin/../session`` and
``/admin%2fapi`` are not in it and stay token-gated. A prefix that could
shadow an API route (``/session``, ``/global``), or that is not a plain path
(an encoded separator, ``..``, a query), is refused when the engine starts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .assets import shell, static_files
from .responses import asset_response

if TYPE_CHECKING:
    from quart import Quart
    from quart_trio.wrappers import TrioResponse as Response

_SEGMENT = re.compile(r"^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$")
SHELL_METHODS = frozenset({"GET", "HEAD"})


def normalize_prefix(prefix: str) -> str:
    """``prefix`` as ``/a[/b...]`` without a trailing slash, or ConfigError saying why not."""
    value = prefix.strip()
    if not value.startswith("/"):
        value = "/" + value
    value = value.rstrip("/")
    segments = value.split("/")[1:]
    if not segments or segments == [""]:
        raise ConfigError("web_ui_prefix must name a path below the root, such as /admin")
    for segment in segments:
        if segment in (".", "..") or "%" in segment or not _SEGMENT.match(segment):
            raise ConfigError(
                f"web_ui_prefix `{prefix}` is not a plain path: use letters, digits, `-`, `_`, "
                "`.` or `~` in each segment, with no `..` and no encoded characters"
            )
    return value


def shell_paths(prefix: str) -> frozenset[str]:
    """Every public path of the application under ``prefix`` (already normalized)."""
    return frozenset({prefix, f"{prefix}/", *(f"{prefix}/{name}" for name in static_files())})


def install_web_ui(app: Quart, prefix: str) -> frozenset[str]:
    """Serve the application under ``prefix``; return the paths the gate lets through.

    Call after every API blueprint is registered: the prefix is checked against them.
    """
    refuse_overlap(app, prefix)
    base = f"{prefix}/"

    async def serve_shell() -> Response:
        return asset_response(shell(base, "embedded"))

    async def serve_file(name: str) -> Response:
        return asset_response(static_files()[name])

    app.add_url_rule(prefix, "webui_shell", serve_shell, methods=["GET"])
    app.add_url_rule(base, "webui_shell_slash", serve_shell, methods=["GET"])
    for index, name in enumerate(sorted(static_files())):
        app.add_url_rule(
            f"{base}{name}",
            f"webui_file_{index}",
            serve_file,
            methods=["GET"],
            defaults={"name": name},
        )
    return shell_paths(prefix)


def refuse_overlap(app: Quart, prefix: str) -> None:
    """ConfigError when the application would overlap an API route of ``app``.

    The rule (the page is only ever ``GET``/``HEAD``): an API route answering GET or
    HEAD at or under ``prefix`` overlaps, and so does any API route, whatever its
    methods, at one of the application's own paths (that path would be public for
    GET and gated otherwise). An API route under the prefix answering only other
    methods (``POST /admin/reload-config``) is no overlap: the gate keeps it, and
    every other path under the prefix, token-gated (svc/http/gate.py).
    """
    from werkzeug.exceptions import MethodNotAllowed, NotFound

    adapter = app.url_map.bind("localhost")
    for rule in app.url_map.iter_rules():
        if not (rule.methods or set()) & SHELL_METHODS:
            continue
        if rule.rule == prefix or rule.rule.startswith(f"{prefix}/"):
            raise _overlap(prefix, rule.rule)
    for probe in sorted(shell_paths(prefix)):
        for method in SHELL_METHODS:
            try:
                matched = adapter.match(probe, method=method)
            except MethodNotAllowed:
                # Another method's API route lives at one of the application's own paths.
                raise _overlap(prefix, probe) from None
            except NotFound:
                continue
            except Exception:  # werkzeug's RequestRedirect (a slash rule): not this path
                continue
            raise _overlap(prefix, str(matched[0]))


def _overlap(prefix: str, route: str) -> ConfigError:
    return ConfigError(
        f"web_ui_prefix `{prefix}` overlaps the API route `{route}`; choose another prefix "
        "(SVC_WEB_UI_PREFIX or --web-ui-prefix)"
    )
