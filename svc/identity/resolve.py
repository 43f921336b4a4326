"""The effective identity: defaults, then each configuration layer, then the environment.

Each layer may hold an ``identity`` block and the older top-level keys
``bot_name``, ``persona`` and ``protocol_title``. Within a layer the block
wins over the older keys; across layers the usual precedence applies (global,
project, managed, environment, command line), so ``AGENT_BOT_NAME`` (or
``SVC_BOT_NAME``) names the assistant whatever the files say, ``AGENT_PERSONA``
becomes the default personality's custom instructions and
``AGENT_PROTOCOL_TITLE`` the protocol alias (the title sent to providers).

The result is normalised: an empty alias is filled from the canonical name
(``tui`` gets ``"<name> TUI"``), and an empty or unknown preset is
``balanced``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..settings import Settings

# The presets are imported on first use: the session context imports this module, but
# start-up resolves no identity (docs/architecture.md, "Start-up budget").

DEFAULT_NAME = "svc"
ALIASES = ("desktop", "tui", "portal", "control_panel", "channels", "protocol", "cli")
LAYERS = ("global", "project", "managed", "env", "cli")


def default_identity() -> dict[str, Any]:
    from .presets import DEFAULT_PRESET

    return {
        "bot": {"canonical_name": DEFAULT_NAME, "avatar_url": None, "aliases": {}},
        "personality": {
            "default": {"preset": DEFAULT_PRESET, "custom_instructions": None},
            "per_agent": {},
        },
    }


def legacy_block(layer: Mapping[str, Any]) -> dict[str, Any]:
    """The identity a layer's top-level ``bot_name``/``persona``/``protocol_title`` imply."""
    block: dict[str, Any] = {}
    if isinstance(layer.get("bot_name"), str):
        block.setdefault("bot", {})["canonical_name"] = layer["bot_name"]
    if isinstance(layer.get("protocol_title"), str):
        block.setdefault("bot", {}).setdefault("aliases", {})["protocol"] = layer["protocol_title"]
    if isinstance(layer.get("persona"), str):
        block["personality"] = {"default": {"custom_instructions": layer["persona"]}}
    return block


def merge(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """Deep merge; an explicit ``None`` clears a value (the settings merge skips it instead)."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def layer_identity(layer: Mapping[str, Any]) -> dict[str, Any]:
    block = layer.get("identity")
    return merge(legacy_block(layer), block if isinstance(block, Mapping) else {})


@attrs.frozen
class Identity:
    """The normalised identity (see the module docstring)."""

    data: Mapping[str, Any]

    @property
    def name(self) -> str:
        return self.data["bot"]["canonical_name"]

    @property
    def protocol_title(self) -> str:
        return self.data["bot"]["aliases"]["protocol"]

    def personality_for(self, agent: str | None = None) -> tuple[str, str | None]:
        """``(preset, custom_instructions)`` for an agent (its override, else the default)."""
        personality = self.data["personality"]
        default = personality["default"]
        override = personality["per_agent"].get(agent) if agent else None
        if not override:
            return default["preset"], default["custom_instructions"]
        preset = override.get("preset") or default["preset"]
        custom = (
            override["custom_instructions"]
            if override.get("custom_instructions") is not None
            else default["custom_instructions"]
        )
        return preset, custom

    def instructions_for(self, agent: str | None = None) -> str | None:
        """The personality's system-prompt text for an agent; None for the plain default voice."""
        from .presets import BY_ID

        preset, custom = self.personality_for(agent)
        parts = [BY_ID[preset].instructions, (custom or "").strip()]
        text = "\n".join(p for p in parts if p)
        return text or None

    def to_wire(self) -> dict[str, Any]:
        return _plain(self.data)


def _section(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """``data[key]`` when it is an object, else an empty one."""
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def normalize(raw: Mapping[str, Any]) -> dict[str, Any]:
    from .presets import DEFAULT_PRESET

    data = merge(default_identity(), raw)
    bot = _section(data, "bot")
    name = bot.get("canonical_name")
    name = name.strip() if isinstance(name, str) and name.strip() else DEFAULT_NAME
    aliases_raw = _section(bot, "aliases")
    aliases: dict[str, str] = {}
    for key in (*ALIASES, *sorted(k for k in aliases_raw if k not in ALIASES)):
        value = aliases_raw.get(key)
        if isinstance(value, str) and value.strip():
            aliases[key] = value.strip()
        elif key in ALIASES:
            aliases[key] = f"{name} TUI" if key == "tui" else name
    avatar = bot.get("avatar_url")
    personality = _section(data, "personality")
    per_agent_raw = _section(personality, "per_agent")
    per_agent = {}
    for agent, entry in sorted(per_agent_raw.items()):
        if isinstance(entry, Mapping):
            per_agent[str(agent)] = {
                "preset": _preset(entry.get("preset"), fallback=None),
                "custom_instructions": _text(entry.get("custom_instructions")),
            }
    default = _section(personality, "default")
    return {
        "bot": {
            "canonical_name": name,
            "avatar_url": avatar if isinstance(avatar, str) and avatar else None,
            "aliases": aliases,
        },
        "personality": {
            "default": {
                "preset": _preset(default.get("preset"), fallback=DEFAULT_PRESET),
                "custom_instructions": _text(default.get("custom_instructions")),
            },
            "per_agent": per_agent,
        },
    }


def _preset(value: Any, *, fallback: str | None) -> str | None:
    from .presets import BY_ID

    return value if isinstance(value, str) and value in BY_ID else fallback


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def resolve_identity(settings: Settings) -> Identity:
    """The effective identity of ``settings`` (see the module docstring)."""
    raw: dict[str, Any] = {}
    layers = [settings.layer(name) for name in LAYERS]
    if any(layers):
        for layer in layers:
            raw = merge(raw, layer_identity(layer))
    else:
        # Settings built directly rather than loaded: only the merged fields exist.
        raw = merge(
            legacy_block(
                {
                    "bot_name": settings.bot_name,
                    "persona": settings.persona,
                    "protocol_title": settings.protocol_title,
                }
            ),
            settings.identity or {},
        )
    return Identity(normalize(raw))


__all__ = [
    "ALIASES",
    "DEFAULT_NAME",
    "Identity",
    "default_identity",
    "layer_identity",
    "legacy_block",
    "merge",
    "normalize",
    "resolve_identity",
]
