"""Health, provider configuration and configuration reload."""

from ..records import HEALTH
from ..records.system import OK
from ..registry import OBJECT, op

BLUEPRINT = "global"

OPERATIONS = {
    "health": op(
        "Liveness and readiness (public)",
        returns=HEALTH,
    ),
    "config_providers": op("Configured model providers and the default", returns=OBJECT),
    "reload_config": op("Reload the configuration files", returns=OK),
}
