"""Health, provider configuration and configuration reload."""

from ..records import HEALTH
from ..records.providers import PROVIDERS_CONFIG
from ..records.system import OK
from ..registry import op

BLUEPRINT = "global"

OPERATIONS = {
    "health": op(
        "Liveness and readiness (public)",
        returns=HEALTH,
    ),
    "config_providers": op("Configured model providers and the default", returns=PROVIDERS_CONFIG),
    "reload_config": op("Reload the configuration files", returns=OK),
}
