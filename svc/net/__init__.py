"""Outbound URLs: the one guard every fetch of a model-, user- or config-chosen URL uses.

``check_url`` decides (scheme, credentials, hosts, addresses after DNS);
``guarded_request``/``guarded_stream`` send with the connection pinned to the checked
address and every redirect re-checked; ``check_operator_url`` is the lighter rule for
services the operator runs itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

if TYPE_CHECKING:
    from .addresses import is_public, parse_ip  # noqa: F401
    from .guard import (  # noqa: F401
        CheckedUrl,
        Resolver,
        UrlPolicy,
        UrlRefused,
        check_operator_url,
        check_url,
        check_url_form,
        system_resolver,
    )
    from .send import guarded_request, guarded_stream  # noqa: F401

_exports = LazyExports(
    __name__,
    {
        ".addresses": ["is_public", "parse_ip"],
        ".guard": [
            "CheckedUrl",
            "Resolver",
            "UrlPolicy",
            "UrlRefused",
            "check_operator_url",
            "check_url",
            "check_url_form",
            "system_resolver",
        ],
        ".send": ["guarded_request", "guarded_stream"],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
