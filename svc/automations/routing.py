"""Model policies and model routing for automation runs.

A ``model_policy`` is ``{"default_model": {"provider_id", "model_id"},
"role_models": {"orchestrator" | "planner" | "worker" | "verifier" | "notifier":
{"provider_id", "model_id"}}}``. Routing takes the first candidate whose
provider is configured: for orchestrated runs ``role_models.orchestrator``, then
``default_model``, then the engine's configured default. The other role keys
are stored for later use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..errors import ValidationFailed
from ..providers import ProviderRegistry

ROLE_KEYS = ("orchestrator", "planner", "worker", "verifier", "notifier")


@attrs.frozen
class ModelChoice:
    provider_id: str
    model_id: str
    source: str
    """Where the choice came from (``args.model_policy.role_models.orchestrator``,
    ``config.default_provider``)."""

    def to_wire(self) -> dict[str, str]:
        return {"provider_id": self.provider_id, "model_id": self.model_id, "source": self.source}


def parse_model_spec(value: Any, *, field: str, code: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise ValidationFailed(
            f"`{field}` must be an object with provider_id and model_id", field=field, code=code
        )
    out: dict[str, str] = {}
    for key, aliases in (
        ("provider_id", ("providerID", "providerId")),
        ("model_id", ("modelID", "modelId")),
    ):
        raw = value.get(key)
        for alias in aliases:
            raw = raw if raw is not None else value.get(alias)
        if not isinstance(raw, str) or not raw.strip():
            raise ValidationFailed(
                f"`{field}.{key}` must be a non-empty string", field=f"{field}.{key}", code=code
            )
        out[key] = raw.strip()
    return out


def parse_model_policy(value: Any, *, field: str, code: str) -> dict[str, Any] | None:
    """The canonical policy; ``None`` for ``null`` or ``{}`` (no policy)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValidationFailed(
            f"`{field}` must be an object (use {{}} to clear)", field=field, code=code
        )
    policy: dict[str, Any] = {}
    if value.get("default_model") is not None:
        policy["default_model"] = parse_model_spec(
            value["default_model"], field=f"{field}.default_model", code=code
        )
    roles = value.get("role_models")
    if roles is not None:
        if not isinstance(roles, Mapping):
            raise ValidationFailed(
                f"`{field}.role_models` must be an object", field=f"{field}.role_models", code=code
            )
        parsed = {}
        for role, spec in roles.items():
            if role not in ROLE_KEYS:
                raise ValidationFailed(
                    f"`{field}.role_models.{role}` is not a role ({', '.join(ROLE_KEYS)})",
                    field=f"{field}.role_models.{role}",
                    code=code,
                )
            if spec is not None:
                parsed[role] = parse_model_spec(
                    spec, field=f"{field}.role_models.{role}", code=code
                )
        if parsed:
            policy["role_models"] = parsed
    return policy or None


def route_model(
    providers: ProviderRegistry,
    policy: Mapping[str, Any] | None,
    *,
    orchestrated: bool,
    prefix: str = "args.model_policy",
) -> ModelChoice:
    """The model a run uses (see the module docstring); the provider error if none resolves."""
    candidates: list[tuple[Mapping[str, Any] | None, str]] = []
    if policy:
        if orchestrated:
            candidates.append(
                (
                    (policy.get("role_models") or {}).get("orchestrator"),
                    f"{prefix}.role_models.orchestrator",
                )
            )
        candidates.append((policy.get("default_model"), f"{prefix}.default_model"))
    for spec, source in candidates:
        if spec and providers.is_configured(spec["provider_id"]):
            return ModelChoice(spec["provider_id"], spec["model_id"], source)
    provider, model = providers.resolve(None, None)
    return ModelChoice(provider.id, model, "config.default_provider")


__all__ = ["ROLE_KEYS", "ModelChoice", "parse_model_policy", "parse_model_spec", "route_model"]
