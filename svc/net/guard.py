"""The outbound-URL guard: whether the engine may fetch a URL, and where to connect.

Every URL the engine fetches that a model, a user or a config chose goes through
:func:`check_url` (or :func:`guarded_request`, which calls it at every hop). The
check refuses, by stable reason:

* ``invalid_url``: unparsable, no host, or a host ending in a number that is no IPv4;
* ``scheme``: not https (not http either, unless the policy allows plain http);
* ``credentials``: ``user:pass@`` in the URL;
* ``host_not_allowed``: the policy lists hosts and this is not one of them;
* ``private_address``: loopback, private, link-local, CGNAT, multicast, reserved,
  IPv4-mapped or NAT64 forms of those (see :mod:`svc.net.addresses`), in any IPv4
  spelling (``127.1``, ``2130706433``, ``0x7f000001``), a local-only name
  (``localhost``, ``*.localhost``, ``*.local``, ``*.internal``, ``*.home.arpa``), or
  a name any of whose DNS answers is one (one bad answer fails the whole name);
* ``unresolvable``: DNS gave nothing.

The checked addresses are returned so the caller connects to them and never asks
DNS again (a second answer could differ: DNS rebinding).

:func:`check_operator_url` is the lighter rule for a service the operator runs and
configures (MCP connectors, channel API bases, model servers): a local one is normal.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import attrs
import httpx
import trio

from ..errors import ValidationFailed
from .addresses import is_public, parse_ip

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""``(host, port) -> addresses``: DNS for :func:`check_url`; tests inject a fake one."""

REASONS = (
    "scheme",
    "credentials",
    "private_address",
    "host_not_allowed",
    "redirect",
    "unresolvable",
    "invalid_url",
)

LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")
LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".localdomain")

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


class UrlRefused(ValidationFailed):
    """The URL may not be fetched."""

    code = "URL_NOT_ALLOWED"
    status = 400

    def __init__(
        self, message: str, *, reason: str, field: str | None = None, **extra: Any
    ) -> None:
        super().__init__(message, field=field, reason=reason, **extra)
        self.reason = reason

    def for_field(self, field: str) -> UrlRefused:
        """The same refusal naming the request field the URL came from."""
        return UrlRefused(self.message, reason=self.reason, field=field)


@attrs.frozen
class UrlPolicy:
    """What one caller may fetch; every opt-in is explicit and off by default."""

    allow_http: bool = False
    """Plain http allowed (else https only)."""
    allow_private: bool = False
    """Loopback, private, link-local, CGNAT, multicast, reserved addresses allowed."""
    allowed_hosts: tuple[str, ...] = ()
    """When non-empty: the exact host names (or IP literals) allowed."""
    max_redirects: int = 0
    """0: a redirect is refused; n: followed, each hop re-checked."""
    resolve: bool = True
    """Check the addresses DNS gives (False: names and IP literals only, for a client
    that resolves names itself, such as a browser)."""


@attrs.frozen
class CheckedUrl:
    url: str
    """The URL as given (stripped)."""
    scheme: str
    host: str
    """Lower case, without brackets or a trailing dot; IP literals in canonical form."""
    port: int
    addresses: tuple[str, ...]
    """The checked IPs to connect to (empty when the policy does not resolve)."""


async def system_resolver(host: str, port: int) -> Sequence[str]:
    infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def check_url_form(url: str, policy: UrlPolicy) -> CheckedUrl:
    """Every check that needs no DNS: scheme, credentials, allowed hosts, IP literals, names."""
    text = url.strip() if isinstance(url, str) else ""
    parsed = _parse(text, policy)
    scheme = parsed.scheme.lower()
    allowed = ("http", "https") if policy.allow_http else ("https",)
    if scheme not in allowed:
        raise _refused(
            "scheme", f"only {' or '.join(allowed)} URLs may be fetched, not {scheme or 'none'}"
        )
    if parsed.userinfo or "@" in parsed.netloc.decode("ascii", "replace"):
        raise _refused("credentials", "URLs with credentials (user:password@) are refused")
    raw_host = parsed.raw_host.decode("ascii", "replace")
    host = raw_host.strip("[]").rstrip(".").lower()
    if not host:
        raise _refused("invalid_url", "the URL has no host")
    try:
        literal = parse_ip(host)
    except ValueError as exc:
        raise _refused("invalid_url", str(exc)) from None
    if literal is not None:
        host = str(literal)
    port = parsed.port or DEFAULT_PORTS[scheme]
    if policy.allowed_hosts and host not in _normalized_hosts(policy.allowed_hosts):
        raise _refused("host_not_allowed", f"host {host} is not among the allowed hosts")
    if not policy.allow_private:
        if literal is not None and not is_public(literal):
            raise _refused("private_address", f"{host} is not a public address")
        if literal is None and _is_local_name(host):
            raise _refused("private_address", f"{host} names a local host")
    addresses = (str(literal),) if literal is not None else ()
    return CheckedUrl(url=text, scheme=scheme, host=host, port=port, addresses=addresses)


async def check_url(url: str, policy: UrlPolicy, *, resolver: Resolver | None = None) -> CheckedUrl:
    """Check ``url`` against ``policy``; when the policy resolves, check every DNS answer.

    Raises :class:`UrlRefused` with its reason. Cancellation during resolution
    propagates (nothing to undo).
    """
    checked = check_url_form(url, policy)
    if not policy.resolve or checked.addresses:
        return checked
    try:
        answers = await (resolver or system_resolver)(checked.host, checked.port)
    except (OSError, UnicodeError):
        answers = []
    addresses: list[str] = []
    for answer in answers:
        try:
            address = parse_ip(str(answer))
        except ValueError:
            address = None
        if address is None:
            raise _refused("unresolvable", f"{checked.host} resolved to a non-address {answer!r}")
        if not policy.allow_private and not is_public(address):
            raise _refused(
                "private_address", f"{checked.host} resolves to {address}, not a public address"
            )
        if str(address) not in addresses:
            addresses.append(str(address))
    if not addresses:
        raise _refused("unresolvable", f"cannot resolve {checked.host}")
    return attrs.evolve(checked, addresses=tuple(addresses))


def check_operator_url(
    url: str, *, schemes: Sequence[str] = ("http", "https"), field: str | None = None
) -> str:
    """The lighter rule for an operator's own services: scheme and no credentials.

    Private and loopback hosts are allowed (a local MCP server or gateway is normal).
    Returns the stripped URL. ``field`` names the configuration or request field the URL
    came from: the refusal (400 ``URL_NOT_ALLOWED``) names it.
    """
    text = url.strip() if isinstance(url, str) else ""
    named = f"`{field}`: " if field else ""
    try:
        parsed = httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise _refused("invalid_url", f"{named}not a valid URL: {exc}", field) from None
    if parsed.scheme.lower() not in schemes:
        raise _refused("scheme", f"{named}the URL must use {' or '.join(schemes)}", field)
    if parsed.userinfo or "@" in parsed.netloc.decode("ascii", "replace"):
        raise _refused(
            "credentials",
            f"{named}put credentials in headers or secrets, not in the URL (user:pass@)",
            field,
        )
    if not parsed.raw_host:
        raise _refused("invalid_url", f"{named}the URL has no host", field)
    return text


def _parse(text: str, policy: UrlPolicy) -> httpx.URL:
    try:
        return httpx.URL(text)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        error = f"not a valid URL: {exc}"
    # httpx refuses some IPv4 spellings a browser accepts (``0177.0.0.1``): name the
    # real reason when the host is such an address, since another client would go there.
    try:
        literal = parse_ip(urlsplit(text).hostname or "")
    except ValueError:
        literal = None
    if literal is not None and not policy.allow_private and not is_public(literal):
        raise _refused("private_address", f"{literal} is not a public address")
    raise _refused("invalid_url", error)


def _is_local_name(host: str) -> bool:
    return host in LOCAL_NAMES or host.endswith(LOCAL_SUFFIXES)


def _normalized_hosts(hosts: Sequence[str]) -> set[str]:
    result = set()
    for host in hosts:
        name = host.strip().strip("[]").rstrip(".").lower()
        try:
            literal = parse_ip(name)
        except ValueError:
            literal = None
        result.add(str(literal) if literal is not None else name)
    return result


def _refused(reason: str, message: str, field: str | None = None) -> UrlRefused:
    return UrlRefused(message, reason=reason, field=field)


__all__ = [
    "REASONS",
    "CheckedUrl",
    "Resolver",
    "UrlPolicy",
    "UrlRefused",
    "check_operator_url",
    "check_url",
    "check_url_form",
    "system_resolver",
]
