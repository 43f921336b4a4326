"""Records of chat channels: status, public configuration, verification, tool preferences."""

from __future__ import annotations

from ..registry import Record
from .common import BOOL, INT, NULL_BOOL, NULL_STR, OBJ, STR, STRS, map_of, obj

CHANNEL_STATUS = Record(
    "ChannelStatus",
    obj(
        {
            "enabled": BOOL,
            "connected": BOOL,
            "last_error": NULL_STR,
            "active_sessions": INT,
            "meta": OBJ,
        }
    ),
)
CHANNELS_STATUS = Record("ChannelsStatus", map_of(CHANNEL_STATUS))
CHANNEL_CONFIG = Record(
    "ChannelConfig",
    obj(
        {
            "configured": BOOL,
            "enabled": BOOL,
            "has_token": BOOL,
            "token_masked": NULL_STR,
            "has_signing_secret": BOOL,
            "allowed_users": STRS,
            "mention_only": NULL_BOOL,
        }
    ),
)
# An unconfigured channel has the same shape (`configured: false`).
CHANNELS_CONFIG = Record("ChannelsConfig", map_of(CHANNEL_CONFIG))
CHANNEL_CHANGED = Record("ChannelChanged", obj({"ok": BOOL}))
CHANNEL_VERIFIED = Record(
    "ChannelVerified",
    obj({"ok": BOOL, "channel": STR}, {"identity": {}, "error": STR, "code": STR}),
)
TOOL_PREFERENCES = Record(
    "ChannelToolPreferences",
    obj(
        {
            "enabled_tools": STRS,
            "disabled_tools": STRS,
            "enabled_mcp_servers": STRS,
            "enabled_mcp_tools": STRS,
        }
    ),
)

RECORDS = (
    CHANNEL_STATUS,
    CHANNELS_STATUS,
    CHANNEL_CONFIG,
    CHANNELS_CONFIG,
    CHANNEL_CHANGED,
    CHANNEL_VERIFIED,
    TOOL_PREFERENCES,
)
