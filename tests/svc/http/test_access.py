"""The Host and Origin rules as pure functions (svc/http/access.py)."""

from __future__ import annotations

import pytest

from svc.http.access import AccessPolicy, normalize_origin, split_host


def policy(
    *,
    bound_host: str = "127.0.0.1",
    token_configured: bool = False,
    allowed_hosts: tuple[str, ...] | list[str] = (),
    allowed_origins: tuple[str, ...] | list[str] = (),
) -> AccessPolicy:
    return AccessPolicy.build(
        bound_host=bound_host,
        token_configured=token_configured,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("127.0.0.1:39731", ("127.0.0.1", 39731)),
        ("LocalHost", ("localhost", None)),
        ("[::1]:8080", ("::1", 8080)),
        ("::1", ("::1", None)),
        ("example.com.", ("example.com", None)),
        ("example.com:x", ("example.com", None)),
    ],
)
def test_split_host(value: str, expected: tuple[str, int | None]) -> None:
    assert split_host(value) == expected


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ("https://App.Example/", "https://app.example"),
        ("http://app.example:80", "http://app.example"),
        ("http://[::1]:39731", "http://[::1]:39731"),
        ("null", None),
        ("file://", None),
        ("chrome-extension://abc", None),
        ("http://host:99999", None),
    ],
)
def test_normalize_origin(origin: str, expected: str | None) -> None:
    assert normalize_origin(origin) == expected


def test_hosts_without_a_token() -> None:
    rules = policy(bound_host="localhost.localdomain", allowed_hosts=["box.lan:8080"])
    for host in ("localhost", "127.9.9.9:1", "[::1]", "localhost.localdomain", "box.lan", None):
        assert rules.host_allowed(host), host
    for host in ("rebind.attacker.example", "10.0.0.1", "localhost.attacker.example"):
        assert not rules.host_allowed(host), host


def test_any_host_with_a_token() -> None:
    assert policy(bound_host="0.0.0.0", token_configured=True).host_allowed("a.example")


def test_origins() -> None:
    rules = policy(allowed_origins=["https://app.example/"])
    allowed = [
        ("http://127.0.0.1:39731", "127.0.0.1:39731"),
        ("http://localhost:39731", "127.0.0.1:39731"),
        ("https://app.example", "127.0.0.1:39731"),
        ("http://box.lan:8080", "box.lan:8080"),  # same origin as the (vetted) Host
    ]
    for origin, host in allowed:
        assert rules.origin_allowed(origin, host_header=host, server_port=39731), origin
    refused = [
        "https://evil.example",
        "null",
        "http://127.0.0.1:1",
        "http://app.example",
        "https://app.example:444",
    ]
    for origin in refused:
        assert not rules.origin_allowed(origin, host_header="127.0.0.1:39731", server_port=39731), (
            origin
        )
