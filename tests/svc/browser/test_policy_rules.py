"""The host rules of the network policy and the wait-argument aliases, as pure functions."""

from __future__ import annotations

import pytest

from svc.browser.errors import PolicyDenied
from svc.browser.policy import check_url, is_internal_host, normalize_hosts
from svc.browser.wait_args import canonical_wait_args


def test_hosts_are_normalized() -> None:
    assert normalize_hosts([" .Example.COM ", "example.com", "", "[::1]"]) == (
        "example.com",
        "::1",
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
    assert is_internal_host("10.0.0.1") and not is_internal_host("example.com")
    with pytest.raises(PolicyDenied):
        check_url("http://localhost/", ("host",))


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
