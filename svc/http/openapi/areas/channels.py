"""``/channels``: chat channels' status, configuration, verification, tool preferences, and
the Slack Events endpoint (signed by Slack, no token)."""

from ..records import channels as c
from ..registry import ANY_BODY, op

OPERATIONS = {
    "channels_status": op("Every channel's status", returns=c.CHANNELS_STATUS),
    "channels_config": op("Channel configuration (secrets left out)", returns=c.CHANNELS_CONFIG),
    "slack_events": op(
        "Slack Events API and interactive payloads (signed with `X-Slack-Signature`)",
        body=ANY_BODY,
    ),
    "put_channel": op("Configure a channel", body=ANY_BODY, returns=c.CHANNEL_CHANGED),
    "delete_channel": op("Remove a channel's configuration", returns=c.CHANNEL_CHANGED),
    "verify_channel": op("Check a channel's credentials", returns=c.CHANNEL_VERIFIED),
    "get_tool_preferences": op("A channel's tool preferences", returns=c.TOOL_PREFERENCES),
    "put_tool_preferences": op(
        "Set a channel's tool preferences", body=ANY_BODY, returns=c.TOOL_PREFERENCES
    ),
}
