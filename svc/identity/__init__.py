"""Who the assistant is: its name and aliases, its personality presets, per-agent overrides.

:func:`resolve_identity` gives the effective identity of a :class:`~svc.Settings`
(the system prompt uses it); :class:`IdentityService` (``engine.identity``)
serves and patches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import LazyExports

# The names mypy sees (re-exports, hence noqa: F401); at run time each loads with its
# module on first use.
if TYPE_CHECKING:
    from .component import IdentityComponent  # noqa: F401
    from .patch import ConfigSecretRejected, looks_secret, parse_patch  # noqa: F401
    from .presets import BY_ID, DEFAULT_PRESET, PRESETS, Preset  # noqa: F401
    from .resolve import ALIASES, DEFAULT_NAME, Identity, resolve_identity  # noqa: F401
    from .service import IdentityService  # noqa: F401


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
