"""Provider catalog, defaults and API keys."""

from ..records import providers as p
from ..registry import op

R = "svc.http.routes.providers"

OPERATIONS = {
    "provider_catalog": op(
        "Known providers with their models, the connected ones and the default",
        returns=p.PROVIDER_CATALOG,
    ),
    "provider_auth": op(
        "Which providers have an API key and from where (never the key)",
        returns=p.PROVIDER_AUTH,
    ),
    "patch_config": op(
        "Merge a patch (`default_provider`, `providers.<id>.default_model`, ...) into the "
        "project configuration; secret-looking keys are refused",
        body={"type": "object"},
        returns=p.PROVIDER_CONFIG_PATCHED,
    ),
    "put_auth": op(
        "Store a provider's API key (project file, 0600); used by later runs at once",
        body=f"{R}:ApiKeyBody",
        returns=p.PROVIDER_KEY,
    ),
    "delete_auth": op("Remove a provider's stored API key", returns=p.PROVIDER_KEY),
}
