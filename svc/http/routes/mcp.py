"""MCP connectors over HTTP: configure, connect, list tools, the catalog, capability requests."""

from __future__ import annotations

import html
from typing import Any

from quart import Blueprint

from ...convert import structure
from ...errors import ValidationFailed
from ...mcp import ConnectorInput, ConnectorPatch
from ..request import engine, header, object_body, query_int, query_str

bp = Blueprint("mcp", __name__)


@bp.get("/mcp")
async def list_servers() -> Any:
    return {s.name: s.to_wire() for s in engine().mcp.snapshots()}


@bp.post("/mcp")
async def add_server() -> Any:
    body = structure(ConnectorInput, await object_body())
    await engine().mcp.add(body)
    return {"ok": True}


@bp.patch("/mcp/<name>")
async def patch_server(name: str) -> Any:
    raw = await object_body()
    patch = structure(ConnectorPatch, raw)
    # An explicit `"allowed_tools": null` clears the allowlist like `clear_allowed_tools`.
    cleared = any(key in raw and raw[key] is None for key in ("allowed_tools", "allowedTools"))
    return await engine().mcp.patch(name, patch, clear_allowed_tools=cleared)


@bp.delete("/mcp/<name>")
async def delete_server(name: str) -> Any:
    return await engine().mcp.delete(name)


@bp.post("/mcp/<name>/connect")
async def connect_server(name: str) -> Any:
    return await engine().mcp.connect(name)


@bp.post("/mcp/<name>/disconnect")
async def disconnect_server(name: str) -> Any:
    return await engine().mcp.disconnect(name)


@bp.post("/mcp/<name>/refresh")
async def refresh_server(name: str) -> Any:
    return await engine().mcp.refresh(name)


@bp.get("/mcp/tools")
async def list_tools() -> Any:
    return engine().mcp.tools()


@bp.get("/mcp/resources")
async def list_resources() -> Any:
    rows, failed = await engine().mcp.resources()
    # A list, as clients read it; servers that could not answer are named in a header.
    headers = {"x-svc-mcp-failed": ",".join(sorted(failed))} if failed else {}
    return rows, 200, headers


@bp.post("/mcp/<name>/resources/read")
async def read_resource(name: str) -> Any:
    uri = (await object_body()).get("uri")
    if not isinstance(uri, str) or not uri.strip():
        raise ValidationFailed("`uri` is required", field="uri")
    return await engine().mcp.read_resource(name, uri.strip())


# ------------------------------------------------------------------ OAuth (svc/mcp/oauth.py)
@bp.post("/mcp/<name>/auth")
async def start_auth(name: str) -> Any:
    return await engine().mcp.oauth().start(name)


@bp.get("/mcp/<name>/auth")
async def auth_status(name: str) -> Any:
    return await engine().mcp.oauth().status(name)


@bp.delete("/mcp/<name>/auth")
async def delete_auth(name: str) -> Any:
    return await engine().mcp.oauth().logout(name)


@bp.post("/mcp/<name>/auth/callback")
async def auth_callback(name: str) -> Any:
    body = await object_body()
    code = body.get("code")
    if not isinstance(code, str) or not code:
        raise ValidationFailed("`code` is required", field="code")
    state = body.get("state")
    if state is not None and not isinstance(state, str):
        raise ValidationFailed("`state` must be a string", field="state")
    return await engine().mcp.oauth().callback(name, code, state)


@bp.get("/mcp/<name>/auth/callback")
async def auth_redirect(name: str) -> Any:
    """Where the authorization server sends the person's browser back (public: the flow's
    ``state`` is the proof, checked by the service)."""
    code = query_str("code")
    state = query_str("state")
    if not code:
        raise ValidationFailed("`code` is required", field="code")
    if not state:
        raise ValidationFailed("`state` is required", field="state")
    status = await engine().mcp.oauth().redirected(name, code, state)
    outcome = "authorized" if status.get("state") == "authorized" else "not authorized"
    page = (
        "<!doctype html><meta charset=utf-8><title>svc-engine</title>"
        f"<p>MCP server {html.escape(name)}: {outcome}. You can close this tab.</p>"
    )
    return page, 200, {"Content-Type": "text/html; charset=utf-8"}


@bp.post("/mcp/<name>/auth/authenticate")
async def authenticate(name: str) -> Any:
    """Authorize if needed: a stored token is used (the connector reconnects), else a flow
    starts and the reply carries its authorization URL."""
    oauth = engine().mcp.oauth()
    status = await oauth.status(name)
    if status["state"] == "authorized" and status["hasTokens"]:
        connected = await engine().mcp.connect(name)
        return {**status, "connected": bool(connected.get("ok"))}
    if status["state"] == "pending":
        return status
    return await oauth.start(name)


@bp.get("/mcp/catalog")
async def catalog() -> Any:
    return engine().mcp.catalog()


@bp.get("/mcp/catalog/<slug>/toml")
async def catalog_toml(slug: str) -> Any:
    text = engine().mcp.catalog_toml(slug)
    return text, 200, {"Content-Type": "application/toml; charset=utf-8"}


@bp.post("/mcp/request-capability")
async def request_capability() -> Any:
    # Imported on first use: start-up never parses a capability request (docs/architecture.md,
    # "Start-up budget").
    from ...mcp import CapabilityRequestInput

    request = structure(CapabilityRequestInput, await object_body())
    agent = header("x-svc-agent-id")
    return await engine().mcp.request_capability(request, source="http", caller_agent_id=agent)


@bp.get("/mcp/capability-requests")
async def capability_requests() -> Any:
    records = await engine().mcp.capability_requests(
        agent_id=query_str("agent_id", "agentID"),
        status=query_str("status"),
        limit=query_int("limit", default=100, minimum=1, maximum=1000, clamp=True) or 100,
    )
    return {"requests": records, "count": len(records)}
