"""Model providers: the catalog of known provider ids (clients arrive with sessions)."""

from .catalog import (
    BY_ID,
    LOCAL_MODEL_ID,
    LOCAL_PROVIDER_ID,
    PROVIDER_IDS,
    PROVIDERS,
    SELECTION_ORDER,
    ProviderInfo,
)

__all__ = [
    "BY_ID",
    "LOCAL_MODEL_ID",
    "LOCAL_PROVIDER_ID",
    "PROVIDERS",
    "PROVIDER_IDS",
    "SELECTION_ORDER",
    "ProviderInfo",
]
