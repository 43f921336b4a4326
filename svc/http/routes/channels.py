"""Channels: ``/channels/...`` status, configuration, verification, tool preferences,
and the public Slack Events API endpoint.

``POST /channels/slack/events`` is the one route here without the API token:
Slack's servers sign it instead (``X-Slack-Signature``), and it accepts
``application/json`` (events) and ``application/x-www-form-urlencoded``
(interactive payloads). It is declared public in ``svc/http/auth.py``
(``SLACK_EVENTS_PATH``).
"""

from __future__ import annotations

from typing import Any

from quart import Blueprint, request

from ..request import engine, json_body

bp = Blueprint("channels", __name__)

SLACK_EVENTS_PATH = "/channels/slack/events"


def _service() -> Any:
    from ...channels import channels_of

    return channels_of(engine())


@bp.get("/channels/status")
async def channels_status() -> Any:
    return await _service().status()


@bp.get("/channels/config")
async def channels_config() -> Any:
    return await _service().public_config()


@bp.post(SLACK_EVENTS_PATH)
async def slack_events() -> Any:
    raw = await request.get_data(cache=True)
    status, body, headers = await _service().slack_event(dict(request.headers), raw)
    return body, status, headers


@bp.put("/channels/<name>")
async def put_channel(name: str) -> Any:
    service = _service()
    from ...channels.config import channel_name

    channel_name(name)  # 404 before the body is read
    return await service.configure(name, await json_body())


@bp.delete("/channels/<name>")
async def delete_channel(name: str) -> Any:
    return await _service().remove(name)


@bp.post("/channels/<name>/verify")
async def verify_channel(name: str) -> Any:
    return await _service().verify(name)


@bp.get("/channels/<name>/tool-preferences")
async def get_tool_preferences(name: str) -> Any:
    return await _service().tool_preferences(name)


@bp.put("/channels/<name>/tool-preferences")
async def put_tool_preferences(name: str) -> Any:
    return await _service().set_tool_preferences(name, await json_body())
