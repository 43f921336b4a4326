"""Who the assistant is: its name and aliases, its personality presets, per-agent overrides.

:func:`resolve_identity` gives the effective identity of a :class:`~svc.Settings`
(the system prompt uses it); :class:`IdentityService` (``engine.identity``)
serves and patches it.
"""

from __future__ import annotations

from ..lazy import LazyExports

_exports = LazyExports(
    __name__,
    {
        ".component": [
            "IdentityComponent",
        ],
        ".patch": [
            "ConfigSecretRejected",
            "looks_secret",
            "parse_patch",
        ],
        ".presets": [
            "BY_ID",
            "DEFAULT_PRESET",
            "PRESETS",
            "Preset",
        ],
        ".resolve": [
            "ALIASES",
            "DEFAULT_NAME",
            "Identity",
            "resolve_identity",
        ],
        ".service": [
            "IdentityService",
        ],
    },
)
__getattr__, __dir__, __all__ = _exports.getattr, _exports.dir, _exports.names
