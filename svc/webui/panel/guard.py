"""Which requests the panel answers: its own Host names and its own page only.

The panel adds the engine token to everything it forwards, so any caller that
reaches it borrows that authority. A web page the user visits could reach it at
``127.0.0.1`` (a cross-site request) or under a name of its own (DNS
rebinding); both are refused here, before anything is forwarded:

* ``Host`` must be the panel's own bind address or a loopback name;
* a request carrying ``Origin`` (a browser page) must come from the panel's
  own origin: the scheme, the host it named and the panel's port.

Pure functions of strings (the engine's own rules live in svc/http/access.py; the
panel's are narrower: no allow-lists).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


def split_authority(value: str) -> tuple[str, int | None] | None:
    """``host[:port]`` as (lower-case host, port), or None if it is not one."""
    try:
        parts = urlsplit(f"//{value.strip()}")
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    if not host or parts.path or parts.username or parts.password:
        return None
    return host, port


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_allowed(host_header: str | None, *, bind_host: str, port: int) -> bool:
    if not host_header:
        return False
    authority = split_authority(host_header)
    if authority is None:
        return False
    host, named_port = authority
    if named_port is not None and named_port != port:
        return False
    return is_loopback(host) or host == bind_host.lower().strip("[]")


def origin_allowed(origin: str, *, host_header: str | None, port: int) -> bool:
    """Only the panel's own page: ``http://<the host named in Host>:<the panel's port>``."""
    try:
        parts = urlsplit(origin.strip())
        origin_port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname or not host_header:
        return False
    authority = split_authority(host_header)
    if authority is None:
        return False
    return parts.hostname.rstrip(".").lower() == authority[0] and origin_port == port
