"""Who the assistant is: its name and aliases, its personality presets, per-agent overrides.

:func:`resolve_identity` gives the effective identity of a :class:`~svc.Settings`
(the system prompt uses it); :class:`IdentityService` (``engine.identity``)
serves and patches it.
"""

from .component import IdentityComponent
from .patch import ConfigSecretRejected, looks_secret, parse_patch
from .presets import BY_ID, DEFAULT_PRESET, PRESETS, Preset
from .resolve import ALIASES, DEFAULT_NAME, Identity, resolve_identity
from .service import IdentityService

__all__ = [
    "ALIASES",
    "BY_ID",
    "DEFAULT_NAME",
    "DEFAULT_PRESET",
    "PRESETS",
    "ConfigSecretRejected",
    "Identity",
    "IdentityComponent",
    "IdentityService",
    "Preset",
    "looks_secret",
    "parse_patch",
    "resolve_identity",
]
