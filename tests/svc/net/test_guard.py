"""The outbound-URL guard's decisions: every refused form, by its stable reason."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from svc.net import UrlPolicy, UrlRefused, check_operator_url, check_url, check_url_form

STRICT = UrlPolicy()
HTTP = UrlPolicy(allow_http=True)

LOOPBACK_SPELLINGS = [
    "http://127.0.0.1/",
    "http://127.1/",
    "http://127.0.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0x7f.1/",
    "http://0177.0.0.1/",
    "http://017700000001/",
    "http://127.0.0.1./",
    "http://0.0.0.0/",
    "http://0/",
    "http://[::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://[64:ff9b::127.0.0.1]/",  # NAT64
    "http://[2002:7f00:1::]/",  # 6to4
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://printer.local/",
    "http://metadata.google.internal/",
]

PRIVATE_ADDRESSES = [
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "100.64.0.1",  # CGNAT
    "224.0.0.1",  # multicast
    "239.255.255.250",
    "240.0.0.1",  # reserved
    "255.255.255.255",
    "192.0.2.1",  # documentation
    "198.18.0.1",  # benchmarking
    "[fc00::1]",  # unique local
    "[fd12:3456::1]",
    "[fe80::1]",  # link-local
    "[fe80::1%25eth0]",
    "[fec0::1]",
    "[ff02::1]",  # multicast
    "[2001:db8::1]",  # documentation
    "[::ffff:10.0.0.1]",
    "[::ffff:169.254.169.254]",
    "[64:ff9b::a9fe:a9fe]",  # NAT64 of the metadata address
    "[64:ff9b:1::1]",  # local-use NAT64
    "[100::1]",  # discard
]


@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS)
async def test_loopback_in_every_spelling_is_refused(url: str) -> None:
    with pytest.raises(UrlRefused) as info:
        await check_url(url, HTTP, resolver=_no_dns)
    assert info.value.reason == "private_address"
    assert info.value.code == "URL_NOT_ALLOWED"
    assert info.value.status == 400
    assert info.value.to_body()["reason"] == "private_address"


@pytest.mark.parametrize("host", PRIVATE_ADDRESSES)
async def test_private_and_reserved_addresses_are_refused(host: str) -> None:
    with pytest.raises(UrlRefused) as info:
        await check_url(f"https://{host}/x", STRICT, resolver=_no_dns)
    assert info.value.reason == "private_address"


@pytest.mark.parametrize(
    "host",
    ["93.184.216.34", "8.8.8.8", "[2606:4700::1111]", "[::ffff:8.8.8.8]", "[64:ff9b::808:808]"],
)
async def test_public_literals_pass_without_dns(host: str) -> None:
    checked = await check_url(f"https://{host}/", STRICT, resolver=_no_dns)
    assert len(checked.addresses) == 1


async def test_ipv4_spellings_are_normalized() -> None:
    for url in ("https://0x5db8d822/", "https://1572395042/", "https://93.184.55330/"):
        checked = await check_url(url, STRICT, resolver=_no_dns)
        assert checked.host == "93.184.216.34"
        assert checked.addresses == ("93.184.216.34",)


@pytest.mark.parametrize("url", ["http://1.2.3.4.5/", "http://256.1.1.1/", "http://1.2.3.0x100/"])
def test_a_host_ending_in_a_bad_number_is_invalid(url: str) -> None:
    with pytest.raises(UrlRefused) as info:
        check_url_form(url, HTTP)
    assert info.value.reason == "invalid_url"


@pytest.mark.parametrize(
    ("url", "policy"),
    [
        ("http://example.com/", STRICT),
        ("ftp://example.com/", HTTP),
        ("file:///etc/passwd", HTTP),
        ("gopher://example.com/", HTTP),
        ("javascript:alert(1)", HTTP),
        ("//example.com/", HTTP),
    ],
)
def test_scheme_is_https_unless_http_is_allowed(url: str, policy: UrlPolicy) -> None:
    with pytest.raises(UrlRefused) as info:
        check_url_form(url, policy)
    assert info.value.reason == "scheme"


@pytest.mark.parametrize(
    "url",
    [
        "https://user:hunter2@example.com/",
        "https://hunter2@example.com/",
        "https://:hunter2@example.com/",
        "http://example.com\\@127.0.0.1/",
    ],
)
def test_credentials_in_the_url_are_refused_and_not_repeated(url: str) -> None:
    with pytest.raises(UrlRefused) as info:
        check_url_form(url, HTTP)
    assert info.value.reason == "credentials"
    assert "hunter2" not in info.value.message


@pytest.mark.parametrize(
    "url", ["https://", "https:///path", "not a url at all", "", "http://[::1"]
)
def test_unparsable_urls_are_invalid(url: str) -> None:
    with pytest.raises(UrlRefused) as info:
        check_url_form(url, HTTP)
    assert info.value.reason in ("invalid_url", "scheme")


async def test_every_dns_answer_is_checked() -> None:
    answers = {
        "metadata.example": ["169.254.169.254"],
        "mixed.example": ["93.184.216.34", "10.0.0.7"],
        "mapped.example": ["::ffff:127.0.0.1"],
        "good.example": ["93.184.216.34", "2606:2800:220:1::1", "93.184.216.34"],
    }

    async def resolver(host: str, port: int) -> Sequence[str]:
        return answers.get(host, [])

    for name in ("metadata.example", "mixed.example", "mapped.example"):
        with pytest.raises(UrlRefused) as info:
            await check_url(f"https://{name}/", STRICT, resolver=resolver)
        assert info.value.reason == "private_address", name
    checked = await check_url("https://Good.Example./page", STRICT, resolver=resolver)
    assert checked.host == "good.example"
    assert checked.addresses == ("93.184.216.34", "2606:2800:220:1::1")
    with pytest.raises(UrlRefused) as info:
        await check_url("https://nowhere.example/", STRICT, resolver=resolver)
    assert info.value.reason == "unresolvable"


async def test_resolver_failure_is_unresolvable() -> None:
    async def failing(host: str, port: int) -> Sequence[str]:
        raise OSError("Name or service not known")

    with pytest.raises(UrlRefused) as info:
        await check_url("https://example.invalid/", STRICT, resolver=failing)
    assert info.value.reason == "unresolvable"


async def test_the_system_resolver_checks_real_answers() -> None:
    # "localhost" is refused by name before DNS; a numeric form resolves to itself.
    with pytest.raises(UrlRefused):
        await check_url("http://localhost/", HTTP)
    checked = await check_url(
        "http://127.0.0.1:8080/", UrlPolicy(allow_http=True, allow_private=True)
    )
    assert (checked.host, checked.port, checked.addresses) == ("127.0.0.1", 8080, ("127.0.0.1",))


async def test_allow_private_is_an_explicit_opt_in() -> None:
    policy = UrlPolicy(allow_http=True, allow_private=True)
    for url in ("http://127.1/", "http://[::1]:9/", "http://10.1.2.3/", "http://localhost/"):
        checked = check_url_form(url, policy)
        assert checked.host
    # Credentials and schemes stay refused even then.
    with pytest.raises(UrlRefused):
        check_url_form("http://a:b@127.0.0.1/", policy)


async def test_allowed_hosts_are_exact() -> None:
    policy = UrlPolicy(allowed_hosts=("hooks.example.com", "93.184.216.34"))

    async def resolver(host: str, port: int) -> Sequence[str]:
        return ["93.184.216.34"]

    assert (await check_url("https://HOOKS.example.com/x", policy, resolver=resolver)).host
    assert (await check_url("https://0x5db8d822/", policy, resolver=resolver)).host
    for url in ("https://evil.hooks.example.com/", "https://hooks.example.com.evil.net/"):
        with pytest.raises(UrlRefused) as info:
            await check_url(url, policy, resolver=resolver)
        assert info.value.reason == "host_not_allowed"


async def test_a_policy_that_does_not_resolve_checks_names_and_literals_only() -> None:
    policy = UrlPolicy(allow_http=True, resolve=False)
    checked = await check_url("https://example.com/", policy, resolver=_no_dns)
    assert checked.addresses == ()
    with pytest.raises(UrlRefused):
        await check_url("http://0x7f000001/", policy, resolver=_no_dns)
    with pytest.raises(UrlRefused):
        await check_url("http://localhost:3000/", policy, resolver=_no_dns)


def test_refusal_can_name_the_field() -> None:
    with pytest.raises(UrlRefused) as info:
        check_url_form("http://127.0.0.1/", HTTP)
    named = info.value.for_field("args.url")
    assert named.to_body()["field"] == "args.url"
    assert named.reason == "private_address"


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:3000/mcp", "https://10.0.0.5/api", "http://localhost:8080", "wss://x/y"],
)
def test_operator_urls_may_be_local(url: str) -> None:
    schemes = ("http", "https", "ws", "wss")
    assert check_operator_url(f"  {url} ", schemes=schemes) == url


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/", "scheme"),
        ("file:///tmp/x", "scheme"),
        ("https://user:pw@example.com/", "credentials"),
        ("http://", "invalid_url"),
    ],
)
def test_operator_urls_check_scheme_and_credentials(url: str, reason: str) -> None:
    with pytest.raises(UrlRefused) as info:
        check_operator_url(url)
    assert info.value.reason == reason


async def _no_dns(host: str, port: int) -> Sequence[str]:
    raise AssertionError(f"no DNS lookup expected for {host}")
