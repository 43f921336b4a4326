"""The web application's files, shipped inside the package (no Node toolchain at install or run).

Every file is read once and kept with its gzip twin: the whole application is a
few tens of kilobytes, and a browser that accepts gzip gets the smaller one.
The shell (``index.html``) is rendered per mount with a ``<base>`` naming where
the application lives and a ``mode`` telling it how to reach the API.
"""

from __future__ import annotations

import gzip
import html
import mimetypes
from functools import cache
from importlib import resources

import attrs

STATIC_PACKAGE = "svc.webui"
STATIC_DIR = "static"
SHELL = "index.html"
_TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}


@attrs.frozen
class Asset:
    body: bytes
    gzipped: bytes
    content_type: str


def _read_tree() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    root = resources.files(STATIC_PACKAGE).joinpath(STATIC_DIR)

    def walk(node: object, prefix: str) -> None:
        for child in node.iterdir():  # type: ignore[attr-defined]  # a Traversable
            name = f"{prefix}{child.name}"
            if child.is_dir():
                walk(child, f"{name}/")
            elif not child.name.startswith("."):
                files[name] = child.read_bytes()

    walk(root, "")
    return files


@cache
def static_files() -> dict[str, Asset]:
    """Relative path -> asset, for every file but the shell (which is rendered per mount)."""
    out: dict[str, Asset] = {}
    for name, body in _read_tree().items():
        if name == SHELL:
            continue
        out[name] = _asset(name, body)
    return out


def _asset(name: str, body: bytes) -> Asset:
    suffix = name[name.rfind(".") :] if "." in name else ""
    content_type = _TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "text/plain"
    if content_type.startswith("text/") or content_type.endswith(("+xml", "javascript")):
        content_type += "; charset=utf-8"
    return Asset(body=body, gzipped=gzip.compress(body, 9, mtime=0), content_type=content_type)


@cache
def shell(base: str, mode: str, api: str = "") -> Asset:
    """``index.html`` for an application mounted at ``base`` (ending in ``/``).

    ``mode`` is ``embedded`` (the page asks for the engine token) or ``panel``
    (the panel adds the token; the page never holds it); ``api`` is the path
    prefix under which the engine's routes answer.
    """
    template = _read_tree()[SHELL].decode()
    rendered = (
        template.replace("{{base}}", html.escape(base, quote=True))
        .replace("{{mode}}", html.escape(mode, quote=True))
        .replace("{{api}}", html.escape(api, quote=True))
    )
    return _asset(SHELL, rendered.encode())


def total_gzipped_bytes() -> int:
    """What a browser downloads for the whole application, compressed."""
    return sum(len(a.gzipped) for a in static_files().values()) + len(shell("/", "panel").gzipped)
