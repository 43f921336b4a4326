"""The host rules of the network policy and the wait-argument aliases, as pure functions."""

from __future__ import annotations

import pytest

from svc.browser.errors import PolicyDenied
from svc.browser.policy import check_url, normalize_hosts
from svc.browser.wait_args import canonical_wait_args


def test_hosts_are_normalized() -> None:
    assert normalize_hosts([" .Example.COM ", "example.com", "", "[::1]", "127.1"]) == (
        "example.com",
        "::1",
        "127.0.0.1",
    )


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("https://example.com/a", None),
        ("https://docs.example.com/", None),
        ("https://notexample.com/", "host_not_allowed"),
        ("https://example.com.evil.net/", "host_not_allowed"),
        ("ftp://example.com/", "unsupported_url_scheme"),
        ("javascript:alert(1)", "unsupported_url_scheme"),
        ("http://localhost/", "host_blocked"),
        ("http://a.localhost/", "host_blocked"),
        ("http://10.0.0.1/", "host_blocked"),
        ("http://169.254.169.254/latest", "host_blocked"),
        ("http://[::ffff:127.0.0.1]/", "host_blocked"),
        ("http://[fd00::1]/", "host_blocked"),
        ("http://100.64.1.1/", "host_blocked"),
        ("http://0.0.0.0/", "host_blocked"),
        ("http://192.0.2.1/", "host_blocked"),
        ("http://127.0.0.1:8080/", None),  # listed explicitly: the operator means it
    ],
)
def test_check_url(url: str, code: str | None) -> None:
    allowed = ("example.com", "127.0.0.1")
    if code is None:
        check_url(url, allowed)
        return
    with pytest.raises(PolicyDenied) as caught:
        check_url(url, allowed)
    assert caught.value.code == code


def test_an_empty_allowlist_denies_everything() -> None:
    with pytest.raises(PolicyDenied, match="allowlist is empty"):
        check_url("https://example.com/", ())


def test_a_wide_entry_never_admits_an_internal_literal() -> None:
    with pytest.raises(PolicyDenied):
        check_url("http://localhost/", ("host",))
    with pytest.raises(PolicyDenied, match="host_blocked"):
        check_url("http://db.internal/", ("internal",))
    assert check_url("http://db.internal/", ("db.internal",)) == "db.internal"


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://127.1/", "host_blocked"),
        ("http://2130706433/", "host_blocked"),
        ("http://0x7f000001/", "host_blocked"),
        ("http://0x7f.1/", "host_blocked"),
        ("http://0177.0.0.1/", "host_blocked"),
        ("http://0.0.0.0/", "host_blocked"),
        ("http://0/", "host_blocked"),
        ("http://[::ffff:127.0.0.1]/", "host_blocked"),
        ("http://[::ffff:7f00:1]/", "host_blocked"),
        ("http://[64:ff9b::7f00:1]/", "host_blocked"),
        ("http://[::1]/", "host_blocked"),
        ("http://[fe80::1]/", "host_blocked"),
        ("http://224.0.0.1/", "host_blocked"),
        ("http://printer.local/", "host_blocked"),
        ("http://LOCALHOST./", "host_blocked"),
        ("http://user:pass@example.com/", "url_credentials_not_allowed"),
        ("http://user@example.com/", "url_credentials_not_allowed"),
        ("http://user:pass@127.0.0.1/", "url_credentials_not_allowed"),
        ("http://1.2.3.4.5/", "invalid_url"),
        ("http://[::1/", "invalid_url"),
    ],
)
def test_ip_literal_spellings_and_credentials_are_refused(url: str, code: str) -> None:
    """The shared guard's checks of names and IP literals, without DNS."""
    with pytest.raises(PolicyDenied) as caught:
        check_url(url, ("example.com",))
    assert caught.value.code == code


def test_an_explicit_loopback_entry_admits_every_spelling_of_that_address() -> None:
    allowed = normalize_hosts(["127.0.0.1", "[::1]"])
    for url in ("http://127.0.0.1:9/", "http://127.1/", "http://2130706433/", "http://[::1]/"):
        check_url(url, allowed)
    with pytest.raises(PolicyDenied, match="host_blocked"):
        check_url("http://127.0.0.2/", allowed)
    with pytest.raises(PolicyDenied, match="host_blocked"):
        check_url("http://[::ffff:127.0.0.1]/", normalize_hosts(["::1"]))


def test_subdomains_are_names_never_addresses() -> None:
    assert check_url("https://a.b.example.com/", ("example.com",)) == "a.b.example.com"
    with pytest.raises(PolicyDenied, match="host_not_allowed"):
        check_url("https://8.8.4.4/", ("4.4",))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"session_id": "s", "condition": {"kind": "selector", "value": "#a"}},
            {"session_id": "s", "condition": {"kind": "selector", "value": "#a"}},
        ),
        (
            {"sessionId": "s", "wait_for": {"type": "text", "text": "hi"}, "timeoutMs": 900},
            {"session_id": "s", "timeout_ms": 900, "condition": {"kind": "text", "value": "hi"}},
        ),
        (
            {"session_id": "s", "waitFor": {"url": "/done"}},
            {"session_id": "s", "condition": {"kind": "url", "value": "/done"}},
        ),
        (
            {"session_id": "s", "kind": "network_idle"},
            {"session_id": "s", "condition": {"kind": "network_idle"}},
        ),
        (
            {"session_id": "s", "type": "text", "value": "x"},
            {"session_id": "s", "condition": {"kind": "text", "value": "x"}},
        ),
        (
            {"session_id": "s", "text": "t", "url": "u"},
            {"session_id": "s", "condition": {"kind": "text", "value": "t"}},
        ),
        (
            {"session_id": "s", "selector": "#x", "text": "t"},
            {"session_id": "s", "condition": {"kind": "selector", "value": "#x"}},
        ),
        ({"session_id": "s"}, {"session_id": "s"}),
    ],
)
def test_wait_aliases(args: dict[str, object], expected: dict[str, object]) -> None:
    assert canonical_wait_args(args) == expected
