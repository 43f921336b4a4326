"""The browser's network policy: which URLs a browser session may open or stay on.

Every URL a browser tool opens, and every URL a session lands on (after
redirects, after each action), goes through :func:`check_url`:

* only ``http`` and ``https``;
* an **empty allowlist denies everything**;
* a host is allowed when it equals an allowlist entry or is a subdomain of one;
* SSRF-internal hosts (``localhost``, ``*.localhost``, loopback, private,
  link-local, unspecified, reserved, documentation and shared address ranges, IPv6
  ULA and IPv4-mapped forms) are blocked, unless an allowlist entry names the
  host itself (``127.0.0.1``, ``localhost``, ``intranet.corp``): an explicit
  entry is the operator saying this host is meant, which a test of loopback
  pages or an intranet deployment needs. A wider entry (``corp``) never admits
  an internal IP literal.

Names are not resolved (no DNS lookup), as in the reference: a public name that
resolves to a private address is judged by its name. Name and IP-literal
classification are kept in :func:`is_internal_host`, the one place a shared
outbound-URL guard can later take over.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from .errors import PolicyDenied

_SHARED = ipaddress.ip_network("100.64.0.0/10")
_ZERO = ipaddress.ip_network("0.0.0.0/8")
_DOCS = (
    ipaddress.ip_network("192.0.2.0/24"),
    ipaddress.ip_network("198.51.100.0/24"),
    ipaddress.ip_network("203.0.113.0/24"),
    ipaddress.ip_network("2001:db8::/32"),
)


def normalize_hosts(hosts: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, lower-case, without a leading or trailing dot, de-duplicated, in order."""
    seen: dict[str, None] = {}
    for host in hosts:
        cleaned = host.strip().lower().lstrip(".").rstrip(".")
        if cleaned.startswith("[") and cleaned.endswith("]"):
            cleaned = cleaned[1:-1]
        if cleaned:
            seen.setdefault(cleaned, None)
    return tuple(seen)


def is_internal_host(host: str) -> bool:
    """True for names and IP literals that reach this machine or a private network."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if any(address in net for net in _DOCS if net.version == address.version):
        return True
    if isinstance(address, ipaddress.IPv4Address) and (
        address in _SHARED
        or address in _ZERO
        or address == ipaddress.IPv4Address("255.255.255.255")
    ):
        return True
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_unspecified
        or address.is_reserved
        or address.is_multicast
    )


def host_of(url: str) -> str:
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        raise PolicyDenied(f"invalid_url: `{url}` is not a URL", code="invalid_url") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise PolicyDenied(
            f"unsupported_url_scheme: `{parts.scheme}` URLs are not allowed; "
            "only http and https are",
            code="unsupported_url_scheme",
        )
    host = host.strip().lower().rstrip(".")
    if not host:
        raise PolicyDenied(f"invalid_url: `{url}` has no host", code="invalid_url")
    return host


def check_url(url: str, allowed_hosts: tuple[str, ...]) -> str:
    """Return the URL's host if the policy admits it; raise :class:`PolicyDenied` if not."""
    host = host_of(url)
    if not allowed_hosts:
        raise PolicyDenied(
            "host_not_allowed: browser host allowlist is empty (set `browser.allowed_hosts`)",
            code="host_not_allowed",
        )
    if is_internal_host(host):
        if host in allowed_hosts:
            return host
        raise PolicyDenied(
            f"host_blocked: host `{host}` is blocked by browser network policy "
            "(an internal address; list it in `browser.allowed_hosts` to allow it)",
            code="host_blocked",
        )
    if any(host == entry or host.endswith("." + entry) for entry in allowed_hosts):
        return host
    raise PolicyDenied(
        f"host_not_allowed: host `{host}` is not in the browser allowlist",
        code="host_not_allowed",
    )
