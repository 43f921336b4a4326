"""The agent-facing MCP tools: mcp_list, mcp_list_catalog, mcp_request_capability, mcp_debug."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import svc
from svc.errors import ValidationFailed
from svc.mcp import ConnectorInput
from svc.net import UrlRefused
from svc.tools import DEFAULT_RULES, ToolContext, evaluate
from tests.fakes.mcp_servers import FakeMcpServer
from tests.helpers import wait_for_event

from .conftest import connected_engine_server


def ctx(engine: svc.Engine, **extra: Any) -> ToolContext:
    return ToolContext(workspace=engine.workspace, source="internal", http=engine.http, **extra)


async def run(engine: svc.Engine, tool: str, args: dict[str, Any], **extra: Any) -> Any:
    return await engine.tools.require(tool).execute(args, ctx(engine, **extra))


def test_listing_tools_are_allowed_and_the_others_ask() -> None:
    decided = {
        name: evaluate(DEFAULT_RULES, name, session_id=None)
        for name in (
            "mcp_list",
            "mcp_list_catalog",
            "mcp_request_capability",
            "mcp_debug",
            "mcp.gw.send",
        )
    }
    assert decided == {
        "mcp_list": "allow",
        "mcp_list_catalog": "allow",
        "mcp_request_capability": "ask",
        "mcp_debug": "ask",
        "mcp.gw.send": "ask",
    }


async def test_mcp_list_shows_configured_servers_and_their_tools(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    await connected_engine_server(engine, "bench", workbench.url, allowed_tools=["add"])
    await engine.mcp.add(ConnectorInput(name="later", transport="http://127.0.0.1:9/mcp"))
    result = await run(engine, "mcp_list", {})
    shown = json.loads(result.output)
    assert shown["inventory_version"] == 1 and shown["connected_server_names"] == ["bench"]
    assert shown["enabled_server_names"] == ["bench", "later"]
    bench = next(s for s in shown["servers"] if s["name"] == "bench")
    assert bench["registered_tools"] == ["mcp.bench.add"] and bench["remote_tool_count"] == 7
    assert "input_schema" in shown["omitted_fields"]
    full = result.metadata
    assert (
        full["registered_tools"] == ["mcp.bench.add"]
        and "bench.Search-Issues" in full["remote_tools"]
    )


async def test_mcp_list_catalog_overlays_the_configured_servers(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    # A connector named like a catalog entry, and one the catalog does not know.
    await connected_engine_server(engine, "linear", workbench.url)
    await connected_engine_server(engine, "bench", workbench.url)
    await engine.mcp.add(
        ConnectorInput(name="notion", transport="https://mcp.notion.com/mcp", enabled=False)
    )
    catalog = json.loads((await run(engine, "mcp_list_catalog", {})).output)
    overlay = catalog["overlay"]
    assert overlay["inventory_version"] == 1
    assert overlay["connected_server_names"] == ["bench", "linear"]
    assert overlay["connected_catalog_server_names"] == ["Linear"]
    assert overlay["cataloged_disabled_server_names"] == ["Notion"]
    assert overlay["uncataloged_connected_servers"] == ["bench"]
    counts = overlay["status_counts"]
    assert counts["connected_enabled"] == 1 and counts["cataloged_disabled"] == 1
    assert counts["uncataloged_connected"] == 1
    assert counts["cataloged_not_connected"] == catalog["count"] - 2
    linear = next(s for s in catalog["servers"] if s["slug"] == "linear")
    assert (
        linear["connection_status"] == "connected_enabled"
        and linear["matched_server_name"] == "linear"
    )
    assert linear["execution_available"] is True and linear["registered_tool_count"] == 7


async def test_the_catalog_route_matches_the_tool(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    body = (await client.get("/mcp/catalog")).json()
    assert body["count"] == len(body["servers"]) >= 20 and body["schema_version"] == 1
    assert body == json.loads((await run(engine, "mcp_list_catalog", {})).output)
    # A connector pointing at a catalog URL under any name matches that entry.
    await engine.mcp.add(ConnectorInput(name="tracker", transport="https://mcp.linear.app/mcp"))
    body = (await client.get("/mcp/catalog")).json()
    linear = next(s for s in body["servers"] if s["slug"] == "linear")
    assert (
        linear["matched_server_name"] == "tracker"
        and linear["connection_status"] == "cataloged_not_connected"
    )


async def test_request_capability_records_a_pending_approval_and_connects_nothing(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    result = await run(
        engine,
        "mcp_request_capability",
        {
            "agent_id": "agent-7",
            "mcp_name": "Linear",
            "rationale": "Track the bugs I find",
            "requested_tools": ["create_issue"],
            "context": {"ticket": "OPS-1"},
        },
        session_id="ses-9",
        agent_id="agent-7",
    )
    body = json.loads(result.output)
    approval = body["approval"]
    assert body["ok"] is True and body["requested_by"] == approval["requested_by"]
    assert (
        approval["approval_id"].startswith("apr_")
        and approval["request_type"] == "capability_request"
    )
    assert approval["requested_by"] == {
        "kind": "agent",
        "actor_id": "agent-7",
        "source": "tool:ses-9",
    }
    assert approval["target_resource"] == {"type": "agent", "id": "agent-7"}
    assert approval["status"] == "pending" and approval["rationale"] == "Track the bugs I find"
    assert (approval["reviewed_by"], approval["reviewed_at_ms"], approval["review_notes"]) == (
        None,
        None,
        None,
    )
    assert approval["expires_at_ms"] == approval["created_at_ms"] + 72 * 3_600_000
    context = approval["context"]
    assert context["capability_key"] == "mcp:linear" and context["catalog_match"] is True
    assert context["catalog_entry"]["slug"] == "linear" and context["context"] == {
        "ticket": "OPS-1"
    }
    assert engine.mcp.snapshots() == []  # nothing configured, nothing connected
    assert (await wait_for_event(engine, "mcp.capability.requested")).properties[
        "approvalID"
    ] == approval["approval_id"]

    stored = (await client.get("/mcp/capability-requests", params={"agent_id": "agent-7"})).json()
    assert stored["count"] == 1 and stored["requests"][0] == approval
    assert not await engine.mcp.has_approved_capability("agent-7", "mcp:linear")
    await engine.mcp.review_capability_request(approval["approval_id"], "approve", reviewer="ops")
    assert await engine.mcp.has_approved_capability("agent-7", "mcp:linear")


async def test_request_capability_over_http_and_its_checks(
    client: httpx.AsyncClient, engine: svc.Engine
) -> None:
    response = await client.post(
        "/mcp/request-capability",
        json={"agent_id": "a1", "mcp_name": "Internal Wiki", "rationale": "docs"},
    )
    assert response.status_code == 200
    approval = response.json()["approval"]
    assert (
        approval["context"]["catalog_match"] is False
        and approval["context"]["capability_key"] == "mcp:internal-wiki"
    )
    assert approval["requested_by"]["source"] == "http"
    missing = await client.post("/mcp/request-capability", json={"agent_id": "a1", "mcp_name": "x"})
    assert missing.status_code == 400 and missing.json()["field"] == "rationale"
    other = await client.post(
        "/mcp/request-capability",
        headers={"x-svc-agent-id": "a2"},
        json={"agent_id": "a1", "mcp_name": "x", "rationale": "y"},
    )
    assert other.status_code == 403 and other.json()["code"] == "MCP_REQUEST_DENIED"


async def test_mcp_debug_sends_one_raw_call_to_an_exact_url(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    # A loopback server is reachable because the operator configured it as a connector.
    await engine.mcp.add(ConnectorInput(name="bench", transport=workbench.url, enabled=False))
    result = await run(
        engine,
        "mcp_debug",
        {
            "url": workbench.url,
            "tool": "echo",
            "args": {"text": "x"},
            "headers": {"X-Debug": "debug-secret-9"},
        },
    )
    answer = json.loads(result.output)
    assert (
        answer["status"] >= 400
        and answer["truncated"] is False
        and answer["bytes"] == len(answer["body"])
    )
    request = workbench.requests[-1]
    assert (
        request.rpc_method == "tools/call"
        and request.body["id"] == 1
        and request.session_id is None
    )
    assert request.body["params"] == {"name": "echo", "arguments": {"text": "x"}}
    assert request.headers["x-debug"] == "debug-secret-9" and "debug-secret-9" not in result.output
    assert result.metadata == {
        "url": workbench.url,
        "tool": "echo",
        "timeout_ms": 15_000,
        "max_bytes": 200_000,
        "status": answer["status"],
    }


async def test_mcp_debug_reaches_private_addresses_only_of_configured_connectors(
    workbench: FakeMcpServer, engine: svc.Engine
) -> None:
    """The URL is the model's choice: the outbound guard refuses loopback, private and
    metadata addresses (in any spelling) unless a configured connector lives there."""
    await engine.mcp.add(
        ConnectorInput(name="other", transport="http://127.0.0.1:9/mcp", enabled=False)
    )
    port = workbench.url.split(":")[2].split("/")[0]
    for url in (
        workbench.url,
        f"http://127.1:{port}/mcp",
        f"http://2130706433:{port}/mcp",
        f"http://[::ffff:127.0.0.1]:{port}/mcp",
        "http://169.254.169.254/latest/meta-data",
        "http://localhost:9/mcp",
    ):
        with pytest.raises(UrlRefused) as refused:
            await run(engine, "mcp_debug", {"url": url, "tool": "echo"})
        assert refused.value.reason == "private_address", url
    assert not workbench.requests


async def test_mcp_debug_refuses_urls_with_credentials_and_needs_both_names(
    engine: svc.Engine,
) -> None:
    tool = engine.tools.require("mcp_debug")
    for args, field in (
        ({"url": "http://u:p@127.0.0.1:9/mcp", "tool": "x"}, "args.url"),
        ({"url": " ", "tool": "x"}, "args.url"),
        ({"url": "http://127.0.0.1:9/mcp", "tool": ""}, "args.tool"),
    ):
        with pytest.raises(ValidationFailed) as raised:
            await tool.execute(args, ctx(engine))
        assert raised.value.extra["field"] == field
