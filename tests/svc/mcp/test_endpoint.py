"""What a connector may point at and send."""

from __future__ import annotations

import pytest

from svc.errors import ValidationFailed
from svc.logs import scrub
from svc.mcp import McpStdioTransportDenied
from svc.mcp.endpoint import check_headers, check_name, check_transport, resolve_headers


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/mcp",
        "http://localhost/mcp",
        "http://10.1.2.3/mcp",
        "https://mcp.example.com/mcp",
        "http://[::1]:9000/mcp",
    ],
)
def test_loopback_private_and_public_endpoints_are_allowed(url: str) -> None:
    assert check_transport(url) == url


def test_the_prefixed_form_is_unwrapped() -> None:
    assert check_transport("https:https://mcp.example.com/x") == "https://mcp.example.com/x"


@pytest.mark.parametrize(
    "url", ["https://user:pass@mcp.example.com/mcp", "http://token@127.0.0.1/mcp"]
)
def test_urls_with_credentials_are_refused_naming_the_field(url: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        check_transport(url)
    assert raised.value.extra["field"] == "transport" and "credentials" in raised.value.message


@pytest.mark.parametrize("url", ["ftp://x/mcp", "mcp.example.com", "http://", "http://host:99999/"])
def test_non_http_urls_are_refused(url: str) -> None:
    with pytest.raises(ValidationFailed) as raised:
        check_transport(url)
    assert raised.value.extra["field"] == "transport"


def test_stdio_transports_are_refused() -> None:
    with pytest.raises(McpStdioTransportDenied) as raised:
        check_transport("stdio:npx some-server")
    assert raised.value.status == 400 and raised.value.code == "MCP_STDIO_TRANSPORT_DENIED"


def test_a_secret_in_the_query_string_is_kept_out_of_logs() -> None:
    check_transport("https://mcp.example.com/mcp?api_key=qs-secret-0042&team=red")
    assert scrub("calling ...?api_key=qs-secret-0042") == "calling ...?api_key=[REDACTED]"


@pytest.mark.parametrize(
    ("name", "field_ok"), [("", False), ("a/b", False), ("x" * 65, False), (" ok ", True)]
)
def test_names(name: str, field_ok: bool) -> None:
    if field_ok:
        assert check_name(name) == name.strip()
    else:
        with pytest.raises(ValidationFailed) as raised:
            check_name(name)
        assert raised.value.extra["field"] == "name"


def test_header_names_and_values_are_checked() -> None:
    assert check_headers({"X-Api-Key": "k"}) == {"X-Api-Key": "k"}
    for bad, field in (
        ({"Bad Name": "v"}, "headers[Bad Name]"),
        ({"X": "a\nb"}, "headers[X]"),
        ({"Mcp-Session-Id": "s"}, "headers[Mcp-Session-Id]"),
    ):
        with pytest.raises(ValidationFailed) as raised:
            check_headers(bad)
        assert raised.value.extra["field"] == field


def test_environment_references_resolve_and_become_secrets() -> None:
    resolved = resolve_headers(
        {"Authorization": "Bearer ${env:GW_TOKEN}", "X-User": "ops"}, {"GW_TOKEN": "env-token-77"}
    )
    assert resolved == {"Authorization": "Bearer env-token-77", "X-User": "ops"}
    assert resolve_headers(
        {"Authorization": "${bearer_env:GW_TOKEN}"}, {"GW_TOKEN": "env-token-77"}
    ) == {"Authorization": "Bearer env-token-77"}
    assert scrub("sent env-token-77") == "sent [REDACTED]"
    with pytest.raises(ValidationFailed) as raised:
        resolve_headers({"X-Key": "${env:MISSING_VAR}"}, {})
    assert raised.value.extra["field"] == "headers[X-Key]" and "MISSING_VAR" in raised.value.message
