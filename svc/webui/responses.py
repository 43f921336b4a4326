"""One answer for an application file, the same from the engine and from the panel.

quart-trio's response class, as every svc response (see svc/http/responses.py).
"""

from __future__ import annotations

from quart import request
from quart_trio.wrappers import TrioResponse as Response

from .assets import Asset

# The application loads nothing from elsewhere (the engine runs offline), so the
# policy says exactly that; a page that is framed by another site is refused.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'self'; form-action 'none'; "
    "frame-ancestors 'none'"
)


def asset_response(asset: Asset) -> Response:
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "").lower()
    body = asset.gzipped if gzipped else asset.body
    response = Response(b"" if request.method == "HEAD" else body, status=200)
    response.headers["Content-Type"] = asset.content_type
    response.headers["Content-Length"] = str(len(body))
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    # Revalidated each load: the files change with the installed version, and
    # they are small enough that a stale one costs more than a fresh one.
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response
