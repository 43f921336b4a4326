"""OAuth for MCP connectors, with the MCP SDK's client (``mcp.client.auth``).

The SDK's ``OAuthClientProvider`` does the protocol: protected-resource and
authorization-server discovery, dynamic client registration, PKCE, the code
exchange and refreshing. This module gives it what is the engine's to give:

* storage (:class:`StoredCredentials`): the client registration and the tokens live in
  the store (``mcp_oauth``), registered as secrets (never logged), never in a reply;
* the person in the middle: ``POST /mcp/{name}/auth`` starts a flow in the background
  and answers with the authorization URL the SDK produced; the browser's redirect (or
  ``POST /mcp/{name}/auth/callback`` with ``code`` and ``state``) hands the code to the
  waiting flow, which exchanges it and stores the tokens; the connector then reconnects
  and uses them, without a restart;
* refresh before expiry: a connector's provider is told the stored token expires
  ``REFRESH_MARGIN_S`` earlier than it does, so the SDK refreshes it ahead of time.

A connector with stored credentials connects through the provider; one that meets an
authorization request without a person to ask fails to connect (``MCP_OAUTH_REQUIRED``)
instead of waiting.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..errors import Conflict, Forbidden, SvcError
from ..logs import register_secret
from .oauth_repository import McpOAuthRepository

if TYPE_CHECKING:
    from ..clock import Clock
    from .service import McpService

log = logging.getLogger("svc.mcp")

REFRESH_MARGIN_S = 60
"""A token is refreshed this long before it expires."""
URL_TIMEOUT_S = 30.0
"""How long starting a flow waits for the SDK to produce the authorization URL."""
FLOW_TIMEOUT_S = 600.0
"""How long a started flow waits for the person to come back."""


class McpOAuthRequired(SvcError):
    """The MCP server asks for authorization: start it with POST /mcp/{name}/auth."""

    code = "MCP_OAUTH_REQUIRED"
    status = 409


class McpOAuthFailed(SvcError):
    code = "MCP_OAUTH_FAILED"
    status = 502


def _sdk() -> Any:
    # Imported on first use, like the rest of the SDK (docs/architecture.md).
    from types import SimpleNamespace

    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import (
        AuthorizationCodeResult,
        OAuthClientInformationFull,
        OAuthClientMetadata,
        OAuthToken,
    )

    return SimpleNamespace(
        OAuthClientProvider=OAuthClientProvider,
        AuthorizationCodeResult=AuthorizationCodeResult,
        OAuthClientInformationFull=OAuthClientInformationFull,
        OAuthClientMetadata=OAuthClientMetadata,
        OAuthToken=OAuthToken,
    )


class StoredCredentials:
    """The SDK's ``TokenStorage`` over the store (one connector's row)."""

    def __init__(self, repo: McpOAuthRepository, server: str, clock: Clock) -> None:
        self.repo = repo
        self.server = server
        self.clock = clock
        self.expires_at_ms: int | None = None

    async def get_tokens(self) -> Any:
        row = await self.repo.get(self.server)
        if not row or not row["tokens"]:
            return None
        self.expires_at_ms = row["expires_at_ms"]
        register_secret(row["tokens"].get("access_token"))
        register_secret(row["tokens"].get("refresh_token"))
        return _sdk().OAuthToken.model_validate(row["tokens"])

    async def set_tokens(self, tokens: Any) -> None:
        data = tokens.model_dump(mode="json", exclude_none=True)
        register_secret(data.get("access_token"))
        register_secret(data.get("refresh_token"))
        now = self.clock.now_ms()
        expires_in = data.get("expires_in")
        self.expires_at_ms = now + int(expires_in) * 1000 if expires_in is not None else None
        await self.repo.save_tokens(self.server, data, expires_at_ms=self.expires_at_ms, now_ms=now)

    async def get_client_info(self) -> Any:
        row = await self.repo.get(self.server)
        if not row or not row["client_info"]:
            return None
        register_secret(row["client_info"].get("client_secret"))
        return _sdk().OAuthClientInformationFull.model_validate(row["client_info"])

    async def set_client_info(self, client_info: Any) -> None:
        data = client_info.model_dump(mode="json", exclude_none=True)
        register_secret(data.get("client_secret"))
        await self.repo.save_client(self.server, data, now_ms=self.clock.now_ms())


def _provider_class() -> Any:
    base = _sdk().OAuthClientProvider

    class ExpiringProvider(base):  # type: ignore[misc,valid-type]  # the SDK class, loaded lazily
        """The SDK provider, told when stored tokens expire (less the refresh margin).

        The SDK computes an expiry only for tokens it just received; loaded tokens would
        count as valid until the server refused them, and that answer starts a whole new
        authorization instead of a refresh.
        """

        async def _initialize(self) -> None:
            await super()._initialize()
            stored: StoredCredentials = self.context.storage
            if stored.expires_at_ms is not None:
                remaining_s = (stored.expires_at_ms - stored.clock.now_ms()) / 1000
                self.context.token_expiry_time = time.time() + remaining_s - REFRESH_MARGIN_S

    return ExpiringProvider


@attrs.define(eq=False)
class Flow:
    """One authorization in progress."""

    server: str
    state: str = "starting"
    """``starting``, ``pending`` (waiting for the person), ``authorized`` or ``failed``."""
    authorization_url: str | None = None
    error: str | None = None
    connected: bool = False
    url_ready: trio.Event = attrs.field(factory=trio.Event)
    done: trio.Event = attrs.field(factory=trio.Event)
    code: trio.MemorySendChannel[Any] | None = None
    expected_state: str | None = None
    """The ``state`` of the authorization URL: the browser's redirect must bring it back."""
    scope: trio.CancelScope = attrs.field(factory=trio.CancelScope)

    def to_wire(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "authorizationUrl": self.authorization_url,
            "authorization_url": self.authorization_url,
            "error": self.error,
            "connected": self.connected,
        }


class McpOAuth:
    """Authorization flows and credentials of every connector (see the module docstring)."""

    def __init__(self, service: McpService, repo: McpOAuthRepository) -> None:
        self.service = service
        self.repo = repo
        self.flows: dict[str, Flow] = {}

    def redirect_uri(self, server: str) -> str:
        base = (self.service.public_url() or "http://127.0.0.1").rstrip("/")
        return f"{base}/mcp/{server}/auth/callback"

    def _metadata(self, server: str) -> Any:
        return _sdk().OAuthClientMetadata(
            client_name="svc-engine",
            redirect_uris=[self.redirect_uri(server)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )

    async def connector_auth(self, server: str, url: str) -> Any:
        """The ``httpx2`` auth of a connector with stored credentials, or None."""
        if await self.repo.get(server) is None:
            return None

        async def no_person(authorization_url: str) -> None:
            raise McpOAuthRequired(
                f"MCP server `{server}` asks for authorization: POST /mcp/{server}/auth",
                name=server,
            )

        async def no_callback() -> Any:
            raise McpOAuthRequired(f"MCP server `{server}` asks for authorization", name=server)

        return _provider_class()(
            server_url=url,
            client_metadata=self._metadata(server),
            storage=StoredCredentials(self.repo, server, self.service.clock),
            redirect_handler=no_person,
            callback_handler=no_callback,
        )

    async def start(self, server: str) -> dict[str, Any]:
        snapshot = self.service.get(server)
        flow = self.flows.get(server)
        if flow is None or flow.done.is_set():
            flow = Flow(server)
            self.flows[server] = flow
            self.service.spawn_task(self._run, flow, snapshot.config.transport)
        with trio.move_on_after(URL_TIMEOUT_S):
            # Whichever comes first: the URL for the person, or the end (already authorized).
            async with trio.open_nursery() as nursery:

                async def first(event: trio.Event) -> None:
                    await event.wait()
                    nursery.cancel_scope.cancel()

                nursery.start_soon(first, flow.url_ready)
                nursery.start_soon(first, flow.done)
        return self.status_body(server)

    async def _run(self, flow: Flow, url: str) -> None:
        import httpx2

        send, receive = trio.open_memory_channel[Any](1)
        flow.code = send

        async def redirect(authorization_url: str) -> None:
            from urllib.parse import parse_qs, urlsplit

            flow.authorization_url = authorization_url
            states = parse_qs(urlsplit(authorization_url).query).get("state")
            flow.expected_state = states[0] if states else None
            flow.state = "pending"
            flow.url_ready.set()

        async def callback() -> Any:
            return await receive.receive()

        provider = _provider_class()(
            server_url=url,
            client_metadata=self._metadata(flow.server),
            storage=StoredCredentials(self.repo, flow.server, self.service.clock),
            redirect_handler=redirect,
            callback_handler=callback,
        )
        # The flow's request: an `initialize` the server refuses until authorized; the SDK
        # runs discovery, registration, the person's consent and the code exchange inside it.
        probe = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "svc-engine-oauth", "version": "1"},
            },
        }
        try:
            try:
                with flow.scope, trio.fail_after(FLOW_TIMEOUT_S):
                    async with httpx2.AsyncClient(auth=provider, timeout=30.0) as http:
                        response = await http.post(
                            url,
                            json=probe,
                            headers={"Accept": "application/json, text/event-stream"},
                        )
                    if response.status_code >= 400:
                        raise McpOAuthFailed(
                            f"MCP server `{flow.server}` still refuses after authorization "
                            f"(HTTP {response.status_code})"
                        )
                flow.state = "cancelled" if flow.scope.cancelled_caught else "authorized"
            except trio.TooSlowError:
                flow.state, flow.error = "failed", "nobody completed the authorization in time"
            except Exception as exc:
                log.info("mcp oauth flow of %s failed: %s", flow.server, type(exc).__name__)
                flow.state = "failed"
                flow.error = exc.message if isinstance(exc, SvcError) else _describe(exc)
            flow.url_ready.set()
            if flow.state == "authorized":
                self.service.events.publish(
                    "mcp.auth.authorized", {"name": flow.server}, topic="mcp"
                )
                # The connector picks the tokens up now (connect never raises).
                outcome = await self.service.connect(flow.server)
                flow.connected = bool(outcome.get("ok"))
        finally:
            flow.url_ready.set()
            flow.done.set()

    async def callback(self, server: str, code: str, state: str | None) -> dict[str, Any]:
        flow = self.flows.get(server)
        if flow is None or flow.code is None or flow.state != "pending":
            raise Conflict(
                f"no authorization of MCP server `{server}` is waiting for a code", name=server
            )
        await flow.code.send(_sdk().AuthorizationCodeResult(code=code, state=state))
        await flow.done.wait()
        return self.status_body(server)

    async def redirected(self, server: str, code: str, state: str) -> dict[str, Any]:
        """The browser's redirect to the public callback: no token, so the ``state`` of the
        flow's own authorization URL is the proof (a guess is refused before the flow sees
        it, so nobody without the URL can fail or hijack a waiting authorization)."""
        flow = self.flows.get(server)
        expected = flow.expected_state if flow is not None else None
        if flow is None or flow.state != "pending" or expected is None:
            raise Conflict(
                f"no authorization of MCP server `{server}` is waiting for a code", name=server
            )
        if not secrets.compare_digest(state.encode(), expected.encode()):
            raise Forbidden("the authorization's state does not match", code="OAUTH_STATE_MISMATCH")
        return await self.callback(server, code, state)

    async def logout(self, server: str) -> dict[str, Any]:
        self.service.get(server)
        flow = self.flows.pop(server, None)
        if flow is not None:
            flow.scope.cancel()
        removed = await self.repo.delete(server)
        if removed:
            await self.service.disconnect(server)
            self.service.events.publish("mcp.auth.removed", {"name": server}, topic="mcp")
        return {**self.status_body(server), "removed": removed}

    def status_body(self, server: str) -> dict[str, Any]:
        flow = self.flows.get(server)
        body: dict[str, Any] = {"ok": True, "name": server, "server": server}
        if flow is not None:
            body.update(flow.to_wire())
            body["ok"] = flow.state != "failed"
        else:
            body.update({"state": "none", "authorizationUrl": None, "authorization_url": None})
        return body

    async def status(self, server: str) -> dict[str, Any]:
        self.service.get(server)
        row = await self.repo.get(server)
        tokens = (row or {}).get("tokens") or {}
        body = self.status_body(server)
        if body["state"] in ("none", "cancelled") and tokens:
            body["state"] = "authorized"
        return {
            **body,
            "hasTokens": bool(tokens),
            "registered": bool(row and row.get("client_info")),
            "expiresAtMs": (row or {}).get("expires_at_ms"),
            "refreshable": bool(tokens.get("refresh_token")),
        }


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
