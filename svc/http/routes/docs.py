"""The API's own reference: ``GET /openapi.json`` and the browsable ``GET /doc``.

The document is built from the URL map on the first request for it and kept
(start-up pays nothing; routes do not change while the app lives). ``/doc`` and
its two scripts are a static page shell, public like the health check: it asks
for the token and fetches the document with it, so nothing the token guards is
served without one. The page loads nothing from elsewhere, so it works offline.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from quart import Blueprint, current_app

from ...errors import NotFound
from ..responses import Response

bp = Blueprint("docs", __name__)

RENDERER_VERSION = "redoc 2.5.4"

ASSETS = {
    "redoc.standalone.js": ("redoc/redoc.standalone.js", "text/javascript; charset=utf-8"),
    "doc.js": ("doc.js", "text/javascript; charset=utf-8"),
}

# Everything from the engine itself; Redoc styles inline and searches in a blob worker.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@bp.get("/openapi.json")
async def openapi_document() -> Any:
    document = current_app.config.get("SVC_OPENAPI")
    if document is None:
        from ..openapi import build_document

        document = build_document(current_app)
        current_app.config["SVC_OPENAPI"] = document
    return document


@bp.get("/doc")
async def doc_page() -> Any:
    return _static("doc.html", "text/html; charset=utf-8")


@bp.get("/doc/<asset>")
async def doc_asset(asset: str) -> Any:
    found = ASSETS.get(asset)
    if found is None:
        raise NotFound(f"no asset `{asset}`")
    return _static(*found)


def _static(name: str, content_type: str) -> Response:
    data = resources.files("svc.http").joinpath("static", *name.split("/")).read_bytes()
    return Response(
        data,
        content_type=content_type,
        headers={
            "Content-Security-Policy": PAGE_POLICY,
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-cache",
        },
    )
