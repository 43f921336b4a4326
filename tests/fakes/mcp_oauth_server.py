"""An MCP server that requires OAuth, with its own authorization server: the official SDK's
server auth pieces (``MCPServer(auth_server_provider=..., auth=AuthSettings(...))``) over an
in-memory provider, served on loopback by :class:`~tests.fakes.mcp_servers.FakeMcpServer`.

Served routes: the protected resource metadata, the authorization server metadata,
``/register`` (dynamic client registration), ``/authorize`` (answers at once with a redirect
carrying the code, as if the person had consented), ``/token`` (code and refresh grants)
and ``/mcp`` (bearer tokens only)::

    async with open_oauth_mcp_server(token_ttl_s=3600) as fake:
        fake.url                     # http://127.0.0.1:<port>/mcp
        fake.auth.refreshes          # refresh grants answered
        fake.auth.expire_now()       # every access token is refused from now on
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import trio
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from tests.fakes.mcp_servers import PATH, FakeMcpServer


class MemoryAuthProvider:
    """The authorization server's state; consents to every authorization request."""

    def __init__(self, token_ttl_s: int) -> None:
        self.token_ttl_s = token_ttl_s
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.refreshes = 0
        self.revoked_before = 0.0

    def expire_now(self) -> None:
        """Every access token issued so far is refused (as after its expiry)."""
        self.access.clear()

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = secrets.token_urlsafe(24)
        refresh = secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.token_ttl_s,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=self.token_ttl_s,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(
            client.client_id or "", authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refreshes += 1
        self.refresh.pop(refresh_token.token, None)
        return self._issue(
            client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is not None and found.expires_at is not None and found.expires_at < time.time():
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)
        self.refresh.pop(getattr(token, "token", ""), None)


def oauth_server(base_url: str, provider: MemoryAuthProvider) -> MCPServer:
    server = MCPServer(
        "guarded",
        version="1.0.0",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base_url,  # type: ignore[arg-type]  # pydantic validates the string
            resource_server_url=base_url + PATH,  # type: ignore[arg-type]
            client_registration_options=ClientRegistrationOptions(enabled=True),
            validate_token_resource=True,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Answers only an authorized client."""
        return "an authorized client"

    return server


@asynccontextmanager
async def open_oauth_mcp_server(*, token_ttl_s: int = 3600) -> AsyncIterator[FakeMcpServer]:
    """An OAuth-guarded MCP server on a free loopback port; ``fake.auth`` is its provider."""
    provider = MemoryAuthProvider(token_ttl_s)
    fake = FakeMcpServer(MCPServer("placeholder"))
    async with trio.open_nursery() as nursery:
        fake._nursery = nursery
        # Bind first: the server's metadata must name its own URL.
        binds = await nursery.start(fake._serve, "127.0.0.1:0")
        base = binds[0]
        fake.server = oauth_server(base, provider)
        fake._start_generation(nursery)
        fake.url = base + PATH
        fake.port = int(base.rsplit(":", 1)[1])
        fake.auth = provider  # type: ignore[attr-defined]
        try:
            yield fake
        finally:
            nursery.cancel_scope.cancel()
