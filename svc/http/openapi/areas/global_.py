"""Health, provider configuration and configuration reload."""

from ..registry import OBJECT, op

BLUEPRINT = "global"

OPERATIONS = {
    "health": op(
        "Liveness and readiness (public)",
        returns={
            "type": "object",
            "properties": {"healthy": {"type": "boolean"}, "ready": {"type": "boolean"}},
            "required": ["healthy", "ready"],
        },
    ),
    "config_providers": op("Configured model providers and the default", returns=OBJECT),
    "reload_config": op("Reload the configuration files", returns=OBJECT),
}
