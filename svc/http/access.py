"""Which callers a local engine answers: by the Host they name and the page they come from.

A web page the user visits can send requests to ``127.0.0.1`` (a form, or a
``fetch`` that needs no preflight), and with DNS rebinding it can read the
answers under a name of its own. Two checks close that door:

* **Host.** Without a token, a request must name the engine by a loopback
  name (``localhost``, ``127.0.0.0/8``, ``::1``), the bound host, or a name the
  operator lists (``allowed_hosts``). A rebound page names the attacker's host.
  With a token, any Host is accepted: a page that rebinds cannot present the
  token, and an engine bound to the network is reached by whatever name the
  network gives it.
* **Origin.** A request carrying ``Origin`` comes from a browser page. It is
  answered only when that page is the engine's own (its origin is the
  authority the request names in Host, or a loopback name, the bound host or
  an allowed host with the engine's port) or is listed in ``allowed_origins``.
  ``Origin: null`` (sandboxed frames, files) is never ours. Requests without
  ``Origin`` (CLI, httpx, curl) are not browsers' and pass.

Pure functions of strings, so the rules are tested without a server.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

import attrs

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def split_host(value: str) -> tuple[str, int | None]:
    """``host[:port]`` as (lower-case host without brackets or final dot, port or None)."""
    value = value.strip().lower()
    port: int | None = None
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        if rest.startswith(":") and rest[1:].isdigit():
            port = int(rest[1:])
    elif value.count(":") == 1:
        host, _, raw_port = value.partition(":")
        port = int(raw_port) if raw_port.isdigit() else None
    else:
        host = value  # a bare name, or an IPv6 address without brackets
    return host.rstrip("."), port


def is_loopback_host(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalize_origin(origin: str) -> str | None:
    """``scheme://host[:port]`` in canonical form (default port dropped), or None if not one."""
    parts = urlsplit(origin.strip())
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname.rstrip(".")
    host = f"[{host}]" if ":" in host else host
    if port is None or port == DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


@attrs.frozen
class AccessPolicy:
    """The Host and Origin rules of one configuration."""

    bound_host: str
    """The address the engine listens on (``settings.host``)."""
    check_host: bool
    """False when a token is configured (see the module docstring)."""
    extra_hosts: frozenset[str] = frozenset()
    extra_origins: frozenset[str] = frozenset()

    @classmethod
    def build(
        cls,
        *,
        bound_host: str,
        token_configured: bool,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
    ) -> AccessPolicy:
        origins = (normalize_origin(o) for o in allowed_origins)
        return cls(
            bound_host=split_host(bound_host)[0],
            check_host=not token_configured,
            extra_hosts=frozenset(split_host(h)[0] for h in allowed_hosts if h.strip()),
            extra_origins=frozenset(o for o in origins if o is not None),
        )

    def known_host(self, host: str) -> bool:
        return is_loopback_host(host) or host == self.bound_host or host in self.extra_hosts

    def host_allowed(self, host_header: str | None) -> bool:
        """Whether a request naming ``host_header`` may be answered."""
        if not self.check_host or not host_header:
            # No Host at all is an HTTP/1.0 client, never a browser.
            return True
        return self.known_host(split_host(host_header)[0])

    def origin_allowed(
        self, origin: str, *, host_header: str | None, server_port: int | None
    ) -> bool:
        """Whether a browser page at ``origin`` may call the engine."""
        canonical = normalize_origin(origin)
        if canonical is None:
            return False  # ``null`` and anything that is not an http(s) origin
        if canonical in self.extra_origins:
            return True
        parts = urlsplit(canonical)
        scheme, host = parts.scheme, (parts.hostname or "")
        port = parts.port or DEFAULT_PORTS[scheme]
        requested_host, requested_port = split_host(host_header or "")
        if requested_host and (host, port) == (
            requested_host,
            requested_port or DEFAULT_PORTS[scheme],
        ):
            # Same origin as the authority the request names, which the Host
            # check has vetted (or which a token guards).
            return True
        # The engine's own pages under another loopback name (localhost vs 127.0.0.1).
        return port == server_port and self.known_host(host)
