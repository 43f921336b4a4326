"""Authorization challenges end to end: required, pending within the cooldown, then through."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import svc
from svc import Settings
from svc.tools import ToolContext
from tests.fakes.mcp_servers import AUTH_URL, AuthServer, FakeMcpServer
from tests.helpers import wait_for_event

from .conftest import ManualClock, connected_engine_server


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def engine(settings: Settings, clock: ManualClock) -> AsyncIterator[svc.Engine]:
    async with svc.open_engine(settings, clock=clock) as eng:
        yield eng


def in_session(engine: svc.Engine) -> ToolContext:
    return ToolContext(
        workspace=engine.workspace,
        source="session",
        session_id="ses-1",
        run_id="run-1",
        message_id="msg-1",
        call_id="call-1",
        http=engine.http,
    )


async def call(engine: svc.Engine, tool: str) -> Any:
    return await engine.tools.require(tool).execute({}, in_session(engine))


async def test_a_challenge_blocks_only_that_tool_until_the_cooldown_passes(
    gateway: FakeMcpServer, gateway_state: AuthServer, engine: svc.Engine, clock: ManualClock
) -> None:
    await connected_engine_server(engine, "gw", gateway.url)

    first = await call(engine, "mcp.gw.gmail_sendemail")
    assert first.output == (
        "Authorization required for `mcp.gw.gmail_sendemail`.\nGrant Gmail access first.\n\n"
        f"Authorize here: {AUTH_URL}"
    )
    assert (
        first.metadata["mcpAuth"]["required"] is True
        and first.metadata["mcpAuth"]["pending"] is False
    )
    required = await wait_for_event(engine, "mcp.auth.required", session_id="ses-1")
    assert required.properties["authorizationUrl"] == AUTH_URL
    assert (
        required.properties["tool"] == "mcp.gw.gmail_sendemail"
        and required.properties["server"] == "gw"
    )
    assert required.properties["runID"] == "run-1" and required.properties["messageID"] == "msg-1"
    state = engine.mcp.get("gw").state
    assert (
        state.last_auth_challenge is not None
        and state.last_auth_challenge.tool_name == "Gmail_SendEmail"
    )
    assert list(state.pending_auth_by_tool) == ["gmail_sendemail"]

    clock.advance(10_000)
    calls_before = len(gateway.calls())
    second = await call(engine, "mcp.gw.gmail_sendemail")
    assert len(gateway.calls()) == calls_before  # short-circuited: nothing went out
    assert (
        second.output.endswith("Retry after 5s.")
        and second.metadata["mcpAuth"]["retryAfterMs"] == 5_000
    )
    pending = await wait_for_event(engine, "mcp.auth.pending")
    assert pending.properties["blocked"] is True and pending.properties["retryAfterMs"] == 5_000
    assert pending.properties["sessionID"] == "ses-1"

    # The connector's other tools keep working meanwhile.
    assert (await call(engine, "mcp.gw.gmail_whoami")).output == "ops-bot@example.test"

    gateway_state.authorize()
    clock.advance(5_001)
    third = await call(engine, "mcp.gw.gmail_sendemail")
    assert third.output == "Gmail_SendEmail done" and third.metadata["mcpAuth"] is None
    state = engine.mcp.get("gw").state
    assert state.pending_auth_by_tool == {} and state.last_auth_challenge is None


async def test_a_challenge_in_a_json_rpc_error_is_recognised(
    gateway: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "gw", gateway.url)
    result = await call(engine, "mcp.gw.drive_list")
    assert result.metadata["mcpAuth"]["authorizationUrl"] == AUTH_URL + "&scope=drive"
    assert "Authorization required for Drive" in result.output
    assert (await wait_for_event(engine, "mcp.auth.required")).properties[
        "remoteTool"
    ] == "Drive_List"


async def test_the_cooldown_survives_a_connector_restart(
    gateway: FakeMcpServer, engine: svc.Engine, clock: ManualClock
) -> None:
    await connected_engine_server(engine, "gw", gateway.url)
    await call(engine, "mcp.gw.gmail_sendemail")
    await engine.events.flush()
    ref = engine.actors.lookup("mcp/gw")
    assert ref is not None
    # Crash it: a told message it cannot handle raises in its mailbox loop.
    ref.tell(object())
    await ref.wait_stopped()
    clock.advance(1_000)
    calls_before = len(gateway.calls())
    blocked = await call(engine, "mcp.gw.gmail_sendemail")
    assert blocked.metadata["mcpAuth"]["blocked"] is True and len(gateway.calls()) == calls_before


async def test_auth_cooldown_is_configurable(
    gateway: FakeMcpServer, make_settings: Callable[..., Settings], clock: ManualClock
) -> None:
    async with svc.open_engine(make_settings(mcp_auth_cooldown_ms=0), clock=clock) as engine:
        await connected_engine_server(engine, "gw", gateway.url)
        await call(engine, "mcp.gw.gmail_sendemail")
        again = await call(engine, "mcp.gw.gmail_sendemail")
        assert again.metadata["mcpAuth"]["pending"] is False  # probed again, no short-circuit
        assert [c["name"] for c in gateway.calls()] == ["Gmail_SendEmail", "Gmail_SendEmail"]
