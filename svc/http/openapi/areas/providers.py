"""Provider catalog, defaults and API keys."""

from ..registry import OBJECT, op

R = "svc.http.routes.providers"

OPERATIONS = {
    "provider_catalog": op(
        "Known providers with their models, the connected ones and the default", returns=OBJECT
    ),
    "provider_auth": op("Which providers have an API key and from where (never the key)"),
    "patch_config": op(
        "Merge a patch (`default_provider`, `providers.<id>.default_model`, ...) into the "
        "project configuration; secret-looking keys are refused",
        body={"type": "object"},
        returns=OBJECT,
    ),
    "put_auth": op(
        "Store a provider's API key (project file, 0600); used by later runs at once",
        body=f"{R}:ApiKeyBody",
        returns=OBJECT,
    ),
    "delete_auth": op("Remove a provider's stored API key", returns=OBJECT),
}
