"""Request body limits per route: a small default, larger limits only where a body needs it.

Most routes take a few kilobytes of JSON; a body far past that is a mistake or an
attack, and is refused (413 ``PAYLOAD_TOO_LARGE``) before it is read. Two kinds of
route take more, each with its own setting (docs/configuration.md, "Limits"):

* ``prompt``: a message with its parts, where files travel inline as ``data:`` URLs
  (``max_prompt_body_bytes``);
* ``import``: bulk imports of plans, scenario packs, memory and enterprise sources
  (``max_import_body_bytes``).

Every other route has ``max_body_bytes``. A route that needs more joins :data:`ROUTE_BODY`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map

if TYPE_CHECKING:
    from ..settings import Settings

BodyKind = Literal["default", "prompt", "import"]

ROUTE_BODY: dict[tuple[str, str], BodyKind] = {
    ("POST", "/session/<session_id>/message"): "prompt",
    ("POST", "/session/<session_id>/prompt_async"): "prompt",
    ("POST", "/session/<session_id>/prompt_sync"): "prompt",
    ("POST", "/api/session/<session_id>/message"): "prompt",
    ("POST", "/api/session/<session_id>/prompt_async"): "prompt",
    ("POST", "/api/session/<session_id>/prompt_sync"): "prompt",
    ("POST", "/agent-team/instance/<instance_id>/prompt"): "prompt",
    ("POST", "/memory/import"): "import",
    ("POST", "/workflow-plans/import"): "import",
    ("POST", "/workflow-plans/import/preview"): "import",
    ("POST", "/incident-monitor/security/scenario-packs"): "import",
    ("POST", "/enterprise/source-bindings/<binding_id>/import"): "import",
}
"""(method, rule) of every route whose body may exceed ``max_body_bytes``, and its kind."""

SCOPE_KEY = "svc.body_limit"
"""Where the ASGI scope carries the limit of its request's route."""

_WITHOUT_BODY = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})


def limit_of(settings: Settings, kind: BodyKind) -> int:
    if kind == "prompt":
        return settings.max_prompt_body_bytes
    if kind == "import":
        return settings.max_import_body_bytes
    return settings.max_body_bytes


def largest_limit(settings: Settings) -> int:
    """The most any route accepts: bodies up to it are read to the end (and dropped past
    the route's own limit) so the connection carries the next request."""
    return max(limit_of(settings, kind) for kind in ("default", "prompt", "import"))


def route_limit(url_map: Map, settings: Settings, method: str, path: str) -> int:
    """The body limit of the route ``method path`` would reach (the default when none)."""
    if method in _WITHOUT_BODY:
        return settings.max_body_bytes
    try:
        rule, _ = url_map.bind("engine").match(path, method, return_rule=True)
    except HTTPException:
        return settings.max_body_bytes  # no route: the 404 or 405 needs no body
    return limit_of(settings, ROUTE_BODY.get((method, rule.rule), "default"))


def describe(limit: int) -> str:
    """``1 MiB``, ``512 KiB`` or ``1500 bytes``: a limit as a person reads it."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if limit >= size and limit % size == 0:
            return f"{limit // size} {unit}"
    return f"{limit} bytes"


__all__ = [
    "ROUTE_BODY",
    "SCOPE_KEY",
    "BodyKind",
    "describe",
    "largest_limit",
    "limit_of",
    "route_limit",
]
