"""``/channels``: chat channels' status, configuration, verification, tool preferences, and
the Slack Events endpoint (signed by Slack, no token)."""

from ..registry import ANY_BODY, OBJECT, op

OPERATIONS = {
    "channels_status": op("Every channel's status", returns=OBJECT),
    "channels_config": op("Channel configuration (secrets left out)", returns=OBJECT),
    "slack_events": op(
        "Slack Events API and interactive payloads (signed with `X-Slack-Signature`)",
        body=ANY_BODY,
    ),
    "put_channel": op("Configure a channel", body=ANY_BODY, returns=OBJECT),
    "delete_channel": op("Remove a channel's configuration", returns=OBJECT),
    "verify_channel": op("Check a channel's credentials", returns=OBJECT),
    "get_tool_preferences": op("A channel's tool preferences", returns=OBJECT),
    "put_tool_preferences": op("Set a channel's tool preferences", body=ANY_BODY, returns=OBJECT),
}
