"""Where a chat platform's files may be fetched from (the outbound guard's policy)."""

from __future__ import annotations

import pytest

from svc.channels.discord import FILE_HOSTS
from svc.channels.uploads import file_policy
from svc.net import UrlRefused, check_url_form


def allowed(url: str, api_base_url: str | None) -> bool:
    try:
        check_url_form(url, file_policy(api_base_url, FILE_HOSTS))
    except UrlRefused:
        return False
    return True


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://cdn.discordapp.com/attachments/1/2/a.txt", True),
        ("https://media.discordapp.net/attachments/1/2/a.png", True),
        ("http://cdn.discordapp.com/attachments/1/2/a.txt", False),  # https only
        ("https://evil.example/a.txt", False),
        ("https://127.0.0.1/a.txt", False),
        ("https://user:pw@cdn.discordapp.com/a.txt", False),
    ],
)
def test_by_default_only_the_platforms_file_hosts_over_https(url: str, expected: bool) -> None:
    assert allowed(url, None) is expected


def test_a_configured_api_base_adds_its_own_host_at_any_address() -> None:
    base = "http://gateway.internal:8080/api"
    assert allowed("http://gateway.internal:8080/files/a.txt", base)
    assert allowed("https://cdn.discordapp.com/attachments/a.txt", base)
    assert not allowed("http://other.internal/a.txt", base)
    # an IP literal base is compared in its canonical form, in every spelling
    assert allowed("http://127.0.0.1:9/a.txt", "http://127.1:9")
    assert allowed("http://[::1]:9/a.txt", "http://[0:0::1]:9")
    assert not allowed("http://10.0.0.1/a.txt", "http://127.0.0.1:9")
