"""The one response class routes build themselves (most return a body or a tuple).

Quart's own ``Response`` turns a body that is not async (``None``, a list) into
an iterator that asks asyncio for its running loop. Under quart-trio there is
none: sending such a response (every bare 204) raised ``RuntimeError: no
running event loop`` after the status line had gone out, and hypercorn dropped
the connection under the next request. The trio flavour iterates any body on
trio. ``tests/svc/http/test_responses.py`` keeps quart's class out of svc.
"""

from __future__ import annotations

from collections.abc import Mapping

from quart_trio.wrappers import TrioResponse as Response


def no_content(headers: Mapping[str, str] | None = None) -> Response:
    """A 204 with no body."""
    return Response(status=204, headers=dict(headers or {}))


__all__ = ["Response", "no_content"]
