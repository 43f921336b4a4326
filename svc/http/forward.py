"""Requests for an entity another replica owns are forwarded to it (svc/cluster).

The entity gateway raises :class:`~svc.cluster.OwnedElsewhere` before it
touches the actor, so the request had no effect here and can be sent, as it
came (method, path, query, body, credentials), to the owner's internal URL; the
owner's answer is the answer. A forwarded request carries
``X-Svc-Forwarded-By`` and is never forwarded again (a lease that moved in the
meantime answers 503, retryable).

An owner that does not answer (killed, unreachable) still holds its lease until
it expires: this replica waits that long (never more than one lease time),
then serves the request itself, taking the lease over.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import trio
from quart import Quart, current_app, request
from werkzeug.datastructures import Headers

from ..cluster import FORWARDED_HEADER, OwnedElsewhere
from ..errors import SvcError
from .errors import error_response
from .request import engine
from .responses import Response

log = logging.getLogger("svc.http")

FORWARD_TIMEOUT_S = 900.0
"""A forwarded request may be a whole synchronous run."""

_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "te",
        "upgrade",
        "host",
        "content-length",
        "content-encoding",
        "proxy-connection",
    }
)


def install_forwarding(app: Quart) -> None:
    @app.errorhandler(OwnedElsewhere)
    async def _owned_elsewhere(error: OwnedElsewhere) -> Any:
        if request.headers.get(FORWARDED_HEADER) or not error.owner.url:
            return error_response(error)
        try:
            return await _forward(error.owner.url)
        except httpx.TransportError:
            log.warning("owner replica unreachable", extra={"owner": error.owner.replica_id})
        # The owner is gone or cut off: its lease lapses within one lease time.
        await trio.sleep(max(0, error.owner.remaining_ms) / 1000 + 0.05)
        try:
            return await current_app.make_response(await current_app.dispatch_request())
        except SvcError as again:
            return error_response(again)


async def _forward(base_url: str) -> Response:
    eng = engine()
    headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
    headers.append((FORWARDED_HEADER, eng.cluster.replica_id or ""))
    upstream = await eng.http.request(
        request.method,
        base_url.rstrip("/") + request.full_path.rstrip("?"),
        headers=headers,
        content=await request.get_data(),
        timeout=FORWARD_TIMEOUT_S,
    )
    kept = Headers()
    for k, v in upstream.headers.multi_items():
        if k.lower() not in _HOP_BY_HOP:
            kept.add(k, v)
    return Response(upstream.content, status=upstream.status_code, headers=kept)


__all__ = ["install_forwarding"]
