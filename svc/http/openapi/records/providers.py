"""Records of provider configuration: the catalog, the default route, API key status."""

from __future__ import annotations

from ..registry import Record
from .common import BOOL, NULL_STR, OBJ, STR, STRS, array_of, map_of, obj, of

DEFAULT_ROUTE = Record(
    "DefaultRoute",
    obj(
        {"provider": STR, "model": NULL_STR, "reason": STR},
        {"ignored": STR, "notice": STR},
    ),
)
PROVIDER_ENTRY = Record(
    "ProviderEntry",
    obj(
        {
            "id": STR,
            "name": STR,
            "models": map_of(obj({"name": STR})),
            "catalog_source": STR,
            "catalog_status": STR,
            "catalog_message": NULL_STR,
            "configured": BOOL,
            "needsKey": BOOL,
        }
    ),
)
PROVIDER_CATALOG = Record(
    "ProviderCatalog",
    obj(
        {
            "all": array_of(PROVIDER_ENTRY),
            "connected": STRS,
            "default": STR,
            "effective": of(DEFAULT_ROUTE),
        }
    ),
)
PROVIDERS_CONFIG = Record(
    "ProvidersConfig",
    obj(
        {
            "providers": map_of(OBJ),
            "default": NULL_STR,
            "effective": of(DEFAULT_ROUTE),
        }
    ),
)
_AUTH = obj(
    {
        "id": STR,
        "hasKey": BOOL,
        "has_key": BOOL,
        "source": NULL_STR,
        "configured": BOOL,
        "needsKey": BOOL,
    }
)
PROVIDER_AUTH = Record(
    "ProviderAuth",
    # Each provider's status also sits at the top level, keyed by its id.
    {**obj({"providers": map_of(_AUTH)}), "additionalProperties": _AUTH},
)
PROVIDER_CONFIG_PATCHED = Record(
    "ProviderConfigPatched",
    obj(
        {
            "ok": BOOL,
            "effective": obj(
                {
                    "default_provider": NULL_STR,
                    "providers": map_of(OBJ),
                    "route": of(DEFAULT_ROUTE),
                }
            ),
        }
    ),
)
PROVIDER_KEY = Record(
    "ProviderKey",
    obj({"ok": BOOL, "id": STR, "backend": STR, "hasKey": BOOL, "shadowedBy": NULL_STR}),
)

RECORDS = (
    DEFAULT_ROUTE,
    PROVIDER_ENTRY,
    PROVIDER_CATALOG,
    PROVIDERS_CONFIG,
    PROVIDER_AUTH,
    PROVIDER_CONFIG_PATCHED,
    PROVIDER_KEY,
)
