"""``PATCH /config/identity``: validate a change and write it into the project config file.

The body is the identity object (``{bot, personality}``), the same wrapped as
``{"identity": {...}}``, or the older flat keys ``bot_name``, ``persona`` and
``protocol_title``; both spellings of keys are accepted (``canonicalName``).
Values merge into the ``identity`` block of the project layer
(``.svc/config.json`` by default, created with its directory when missing);
``null`` clears a value, and ``null`` for a ``per_agent`` entry removes that
agent's override. Secret-looking keys are refused outright: identity is not a
place for credentials.

The protocol alias is also written as the top-level ``protocol_title``, which
is what providers read for their title header, so changing it here takes
effect there too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import SvcError, ValidationFailed
from ..logs import is_secret_name
from .presets import BY_ID
from .resolve import ALIASES, merge

MAX_NAME_CHARS = 128
MAX_INSTRUCTIONS_CHARS = 8_000
MAX_AVATAR_BYTES = 24 * 1024 * 1024

_DATA_IMAGE = re.compile(r"^data:image/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$", re.IGNORECASE)
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_SECRET_WORDS = (
    "token",
    "secret",
    "password",
    "credential",
    "apikey",
    "privatekey",
    "signingkey",
    "encryptionkey",
    "authorization",
    "cookie",
    "header",
)


class ConfigSecretRejected(SvcError):
    """Secrets do not belong in identity settings."""

    code = "CONFIG_SECRET_REJECTED"
    status = 400


def looks_secret(key: str) -> bool:
    squashed = "".join(ch for ch in key.lower() if ch.isalnum())
    return (
        is_secret_name(key)
        or squashed in {"auth", "oauth"}
        or any(w in squashed for w in _SECRET_WORDS)
    )


def _snake(key: str) -> str:
    return _CAMEL.sub("_", key).lower()


def reject_secrets(value: Any, path: str = "") -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            where = f"{path}.{key}" if path else str(key)
            if looks_secret(str(key)):
                raise ConfigSecretRejected(
                    f"`{where}` looks like a secret; identity settings never hold credentials",
                    field=where,
                    hint="Use PUT /auth/{provider} or environment variables.",
                )
            reject_secrets(inner, where)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            reject_secrets(inner, f"{path}[{index}]")


def parse_patch(body: Any) -> dict[str, Any]:
    """The validated identity patch (snake_case keys) for a request body."""
    if not isinstance(body, Mapping):
        raise ValidationFailed("request body must be a JSON object", field="$")
    reject_secrets(body)
    body = {_snake(k): v for k, v in body.items()}
    if "identity" in body:
        extra = sorted(set(body) - {"identity"})
        if extra:
            raise ValidationFailed(f"unknown field `{extra[0]}` next to `identity`", field=extra[0])
        inner = body["identity"]
        if not isinstance(inner, Mapping):
            raise ValidationFailed("`identity` must be an object", field="identity")
        return _identity(inner, "identity")
    return _identity(body, "")


def _identity(raw: Mapping[str, Any], path: str) -> dict[str, Any]:
    raw = {_snake(k): v for k, v in raw.items()}
    patch: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"{path}.{key}" if path else key
        if key == "bot":
            patch = merge(patch, {"bot": _bot(_object(value, where), where)})
        elif key == "personality":
            patch = merge(patch, {"personality": _personality(_object(value, where), where)})
        elif key == "bot_name":
            patch = merge(patch, {"bot": {"canonical_name": _name(value, where)}})
        elif key == "persona":
            patch = merge(
                patch,
                {"personality": {"default": {"custom_instructions": _instructions(value, where)}}},
            )
        elif key == "protocol_title":
            patch = merge(patch, {"bot": {"aliases": {"protocol": _alias(value, where)}}})
        else:
            raise ValidationFailed(f"unknown identity field `{where}`", field=where)
    if not patch:
        raise ValidationFailed(
            "the patch changes nothing: send `bot` and/or `personality`", field=path or "$"
        )
    return patch


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValidationFailed(f"`{where}` must be an object", field=where)
    return {_snake(k): v for k, v in value.items()}


def _bot(raw: Mapping[str, Any], path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"{path}.{key}"
        if key == "canonical_name":
            out[key] = _name(value, where)
        elif key == "avatar_url":
            out[key] = _avatar(value, where)
        elif key == "aliases":
            aliases = _object(value, where) if value is not None else {}
            out[key] = {str(k): _alias(v, f"{where}.{k}") for k, v in aliases.items()}
            if value is None:
                out[key] = {alias: None for alias in ALIASES}
        else:
            raise ValidationFailed(f"unknown identity field `{where}`", field=where)
    return out


def _personality(raw: Mapping[str, Any], path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"{path}.{key}"
        if key == "default":
            out[key] = _persona(_object(value, where), where, allow_inherit=False)
        elif key == "per_agent":
            if not isinstance(value, Mapping):
                raise ValidationFailed(
                    f"`{where}` must be an object keyed by agent id", field=where
                )
            agents: dict[str, Any] = {}
            for agent, entry in value.items():  # agent ids keep their spelling
                agent_where = f"{where}.{agent}"
                if not str(agent).strip():
                    raise ValidationFailed("agent ids must not be empty", field=agent_where)
                agents[str(agent)] = (
                    None
                    if entry is None
                    else _persona(_object(entry, agent_where), agent_where, allow_inherit=True)
                )
            out[key] = agents
        else:
            raise ValidationFailed(f"unknown identity field `{where}`", field=where)
    return out


def _persona(raw: Mapping[str, Any], path: str, *, allow_inherit: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"{path}.{key}"
        if key == "preset":
            if value is None and allow_inherit:
                out[key] = None
                continue
            if value is None or value == "":
                out[key] = "balanced"
                continue
            if not isinstance(value, str) or value not in BY_ID:
                raise ValidationFailed(f"`{where}` must be one of {', '.join(BY_ID)}", field=where)
            out[key] = value
        elif key == "custom_instructions":
            out[key] = _instructions(value, where)
        else:
            raise ValidationFailed(f"unknown identity field `{where}`", field=where)
    return out


def _string(value: Any, where: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationFailed(f"`{where}` must be a string", field=where)
    if len(value) > limit:
        raise ValidationFailed(f"`{where}` is longer than {limit} characters", field=where)
    return value.strip() or None


def _name(value: Any, where: str) -> str | None:
    return _string(value, where, MAX_NAME_CHARS)


def _alias(value: Any, where: str) -> str | None:
    return _string(value, where, MAX_NAME_CHARS)


def _instructions(value: Any, where: str) -> str | None:
    return _string(value, where, MAX_INSTRUCTIONS_CHARS)


def _avatar(value: Any, where: str) -> str | None:
    text = _string(value, where, MAX_AVATAR_BYTES * 2)
    if text is None:
        return None
    if text.startswith(("http://", "https://")) and len(text) <= 4096 and " " not in text:
        return text
    if _DATA_IMAGE.match(text):
        payload = text.split(",", 1)[1]
        if len(payload) * 3 // 4 > MAX_AVATAR_BYTES:
            raise ValidationFailed(f"`{where}` image is larger than 24 MiB", field=where)
        return text
    raise ValidationFailed(
        f"`{where}` must be an http(s) URL or a data:image/...;base64 URL", field=where
    )


def apply_patch(data: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """The project file's content with ``patch`` merged into its ``identity`` block."""
    out = dict(data)
    current = out.get("identity")
    identity = merge(current if isinstance(current, Mapping) else {}, patch)
    per_agent = (identity.get("personality") or {}).get("per_agent")
    if isinstance(per_agent, dict):
        identity["personality"]["per_agent"] = {k: v for k, v in per_agent.items() if v is not None}
    out["identity"] = identity
    aliases = (patch.get("bot") or {}).get("aliases") or {}
    if "protocol" in aliases:
        if aliases["protocol"] is None:
            out.pop("protocol_title", None)
        else:
            out["protocol_title"] = aliases["protocol"]
    return out


__all__ = [
    "ConfigSecretRejected",
    "apply_patch",
    "looks_secret",
    "parse_patch",
    "reject_secrets",
]
