"""Channel configuration: the ``channels.<name>`` blocks of the configuration layers.

A block is validated into a :class:`ChannelConfig` (unknown fields are a 400
naming the field). Tokens and signing secrets live in the project layer and are
never returned: :func:`public_view` is what ``GET /channels/config`` shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..convert import aliases, structure, unstructure
from ..errors import NotFound, ValidationFailed

CHANNELS = ("telegram", "discord", "slack")

SECRET_FIELDS = ("bot_token", "signing_secret")

TIERS = ("read", "act", "approve")
"""Slash-command and button tiers, lowest first: each includes the ones before it."""

DEFAULT_API_BASES = {
    "telegram": "https://api.telegram.org",
    "discord": "https://discord.com/api/v10",
    "slack": "https://slack.com/api",
}
DEFAULT_GATEWAY = "wss://gateway.discord.gg/?v=10&encoding=json"

MESSAGE_LIMITS = {"telegram": 4096, "discord": 2000, "slack": 3900}
"""Characters one platform message may carry (Slack's is its recommended text size)."""


class UnknownChannel(NotFound):
    """Unknown channel: use telegram, discord or slack"""

    code = "CHANNEL_NOT_FOUND"


@attrs.frozen
class ToolPreferences:
    """Which tools a channel's runs may use (``GET|PUT /channels/{name}/tool-preferences``)."""

    enabled_tools: list[str] = attrs.field(factory=list)
    """Non-empty: only these tools (and the enabled MCP ones)."""
    disabled_tools: list[str] = attrs.field(factory=list)
    enabled_mcp_servers: list[str] = attrs.field(factory=list)
    enabled_mcp_tools: list[str] = attrs.field(factory=list)

    def allowlist(self) -> tuple[str, ...] | None:
        if not (self.enabled_tools or self.enabled_mcp_servers or self.enabled_mcp_tools):
            return None
        servers = [f"mcp.{server}.*" for server in self.enabled_mcp_servers]
        return tuple(dict.fromkeys([*self.enabled_tools, *servers, *self.enabled_mcp_tools]))


@attrs.frozen
class ChannelConfig:
    """One channel's block (platform-specific fields are ignored by the others)."""

    bot_token: str = ""
    enabled: bool = True
    allowed_users: list[str] = attrs.field(factory=list)
    """Platform user ids (or names) that may talk to the bot; empty: nobody; ``*``: everyone."""
    approvers: list[str] | None = None
    """Users who may answer approvals and questions; ``None``: every allowed user."""
    user_tiers: dict[str, str] = attrs.field(factory=dict)
    """Per-user tier overrides: ``read``, ``act`` or ``approve``."""
    mention_only: bool | None = None
    """In group chats answer only when mentioned (default: Discord yes, others no)."""
    model_provider_id: str | None = aliases("modelProviderID", default=None)
    model_id: str | None = aliases("modelID", default=None)
    api_base_url: str | None = aliases("apiBaseUrl", default=None)
    gateway_url: str | None = aliases("gatewayUrl", default=None)
    signing_secret: str = ""
    guild_id: str | None = None
    channel_id: str | None = None
    approval_chat_id: str | None = None
    approval_channel_id: str | None = None
    stream_edit_interval_ms: int = 1000
    """Least time between two edits of a streamed answer (platform edit limits)."""
    poll_timeout_s: int = 30
    """Telegram long-poll timeout."""
    max_upload_bytes: int = 20 * 1024 * 1024
    rate_limit_prompts: int = 10
    """Prompts one user may send per window; the next is refused until the window moves."""
    rate_limit_window_s: int = 60
    tool_preferences: ToolPreferences = attrs.field(factory=ToolPreferences)
    style_profile: str | None = None
    security_profile: str | None = None
    strict_kb_grounding: bool = False
    connections: list[Any] = attrs.field(factory=list)

    def wants_mention(self, channel: str) -> bool:
        return self.mention_only if self.mention_only is not None else channel == "discord"

    def api_base(self, channel: str) -> str:
        return (self.api_base_url or DEFAULT_API_BASES[channel]).rstrip("/")

    def tier_of(self, user_ids: tuple[str, ...]) -> str | None:
        """The highest tier any of the user's identifiers has, or None (not allowed)."""
        best: str | None = None
        for user in user_ids:
            tier = self._tier(user)
            if tier is not None and (best is None or TIERS.index(tier) > TIERS.index(best)):
                best = tier
        return best

    def _tier(self, user: str) -> str | None:
        if not user:
            return None
        if user in self.user_tiers:
            return self.user_tiers[user]
        if "*" not in self.allowed_users and user not in self.allowed_users:
            return None
        if self.approvers is None or "*" in self.approvers or user in self.approvers:
            return "approve"
        return "act"


def channel_name(raw: str) -> str:
    name = raw.strip().lower()
    if name not in CHANNELS:
        raise UnknownChannel(channel=raw)
    return name


def parse_config(data: Any, *, what: str = "request body") -> ChannelConfig:
    """A channel block validated (400 naming the field)."""
    config = structure(ChannelConfig, data, what=what)
    if any(tier not in TIERS for tier in config.user_tiers.values()):
        raise ValidationFailed(
            f"`user_tiers` values must be one of {', '.join(TIERS)}", field="user_tiers"
        )
    for field, value, low, high in (
        ("stream_edit_interval_ms", config.stream_edit_interval_ms, 0, 60_000),
        ("poll_timeout_s", config.poll_timeout_s, 0, 50),
        ("max_upload_bytes", config.max_upload_bytes, 0, 1 << 30),
        ("rate_limit_prompts", config.rate_limit_prompts, 1, 100_000),
        ("rate_limit_window_s", config.rate_limit_window_s, 1, 86_400),
    ):
        if not low <= value <= high:
            raise ValidationFailed(f"`{field}` must be within {low}..{high}", field=field)
    # The operator's rule of the shared guard: scheme checked, no credentials in the URL;
    # a local API or gateway is normal, so no address checks.
    from ..net.guard import check_operator_url

    prefix = f"{what}." if what.startswith("channels.") else ""
    if config.api_base_url is not None:
        check_operator_url(config.api_base_url, field=f"{prefix}api_base_url")
    if config.gateway_url is not None:
        check_operator_url(config.gateway_url, schemes=("ws", "wss"), field=f"{prefix}gateway_url")
    return config


def to_block(config: ChannelConfig) -> dict[str, Any]:
    """The JSON block written into the project layer (defaults left out)."""
    raw: dict[str, Any] = unstructure(config)
    default: dict[str, Any] = unstructure(ChannelConfig())
    return {k: v for k, v in raw.items() if v != default[k] or (k in SECRET_FIELDS and v)}


def mask(secret: str) -> str | None:
    """A hint that a secret is set, never enough of it to use: ``****abcd`` for long ones."""
    if not secret:
        return None
    return "****" + secret[-4:] if len(secret) >= 16 else "****"


UNCONFIGURED: Mapping[str, Any] = {
    "configured": False,
    "enabled": False,
    "has_token": False,
    "token_masked": None,
    "has_signing_secret": False,
    "allowed_users": [],
    "mention_only": False,
}
"""``GET /channels/config`` for a channel with no block: the same shape, saying so (clients
read an object per channel)."""


def public_view(config: ChannelConfig) -> dict[str, Any]:
    """``GET /channels/config`` for one channel: everything but the secrets."""
    raw: dict[str, Any] = unstructure(config)
    for field in SECRET_FIELDS:
        raw.pop(field, None)
    raw["has_token"] = bool(config.bot_token)
    raw["token_masked"] = mask(config.bot_token)
    raw["has_signing_secret"] = bool(config.signing_secret)
    raw["configured"] = True
    return raw


def configs_from(block: Mapping[str, Any] | None) -> dict[str, ChannelConfig | None]:
    """Every channel's config from the merged ``channels`` settings (None: not configured)."""
    block = block or {}
    result: dict[str, ChannelConfig | None] = {}
    for name in CHANNELS:
        raw = block.get(name)
        if not isinstance(raw, Mapping):
            result[name] = None
            continue
        try:
            result[name] = parse_config(raw, what=f"channels.{name}")
        except ValidationFailed:
            # A hand-edited block that does not parse leaves that channel off,
            # never the engine: its status says why.
            result[name] = None
    return result


__all__ = [
    "CHANNELS",
    "DEFAULT_API_BASES",
    "DEFAULT_GATEWAY",
    "MESSAGE_LIMITS",
    "UNCONFIGURED",
    "ChannelConfig",
    "ToolPreferences",
    "UnknownChannel",
    "channel_name",
    "configs_from",
    "mask",
    "parse_config",
    "public_view",
    "to_block",
]
