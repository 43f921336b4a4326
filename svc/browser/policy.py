"""The browser's network policy: which URLs a browser session may open or stay on.

Every URL a browser tool opens, and every URL a session lands on (after
redirects, after each action), goes through :func:`check_url`:

* only ``http`` and ``https``, and no credentials in the URL (``user:pass@``);
* an **empty allowlist denies everything**;
* a host is allowed when it equals an allowlist entry or is a subdomain of one;
* SSRF-internal hosts are blocked (loopback, private, link-local, CGNAT,
  multicast, reserved and documentation ranges, IPv4-mapped and NAT64 IPv6, in
  every IPv4 spelling: ``127.1``, ``2130706433``, ``0x7f000001``; local-only names
  such as ``localhost`` and ``*.internal``), unless an allowlist entry names the
  host itself (``127.0.0.1``, ``localhost``, ``intranet.internal``): an explicit
  entry is the operator saying this host is meant, which a test of loopback pages
  or an intranet deployment needs. A wider entry (``internal``) never admits an
  internal name or address.

The scheme, credential, name and IP-literal checks are the shared outbound guard's
(:func:`svc.net.check_url_form` with ``resolve=False``): Chromium resolves names
itself, so a public name that resolves to a private address is judged by its name.
Only the allowlist (subdomains, explicit internal entries) is the browser's own.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..net.addresses import parse_ip
from ..net.guard import UrlPolicy, UrlRefused, check_url_form
from .errors import PolicyDenied

_PUBLIC_ONLY = UrlPolicy(allow_http=True, allow_private=False, resolve=False)
_ANY_ADDRESS = UrlPolicy(allow_http=True, allow_private=True, resolve=False)


def normalize_hosts(hosts: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, lower-case, without a leading or trailing dot or brackets, IP literals in
    canonical form (``[::1]`` is ``::1``, ``127.1`` is ``127.0.0.1``), de-duplicated, in
    order."""
    seen: dict[str, None] = {}
    for host in hosts:
        cleaned = host.strip().lower().lstrip(".").rstrip(".")
        if cleaned.startswith("[") and cleaned.endswith("]"):
            cleaned = cleaned[1:-1]
        try:
            literal = parse_ip(cleaned)
        except ValueError:
            literal = None
        if literal is not None:
            cleaned = str(literal)
        if cleaned:
            seen.setdefault(cleaned, None)
    return tuple(seen)


def check_url(url: str, allowed_hosts: tuple[str, ...]) -> str:
    """Return the URL's host if the policy admits it; raise :class:`PolicyDenied` if not.

    ``allowed_hosts`` is already normalized (:func:`normalize_hosts`)."""
    internal = False
    try:
        host = check_url_form(url, _PUBLIC_ONLY).host
    except UrlRefused as exc:
        if exc.reason != "private_address":
            raise _denied(url, exc) from None
        internal = True
        try:
            host = check_url_form(url, _ANY_ADDRESS).host
        except UrlRefused:
            # An address spelling only the guard's own parser reads (``0177.0.0.1``):
            # internal, and never an explicit entry.
            raise _blocked(url) from None
    if not allowed_hosts:
        raise PolicyDenied(
            "host_not_allowed: browser host allowlist is empty (set `browser.allowed_hosts`)",
            code="host_not_allowed",
        )
    if internal:
        if host in allowed_hosts:
            return host
        raise _blocked(host)
    if host in allowed_hosts:
        return host
    if _is_name(host) and any(host.endswith("." + entry) for entry in allowed_hosts):
        return host
    raise PolicyDenied(
        f"host_not_allowed: host `{host}` is not in the browser allowlist",
        code="host_not_allowed",
    )


def _is_name(host: str) -> bool:
    """A DNS name, not an IP literal (an address has no subdomains)."""
    try:
        return parse_ip(host) is None
    except ValueError:
        return False


def _blocked(host: str) -> PolicyDenied:
    return PolicyDenied(
        f"host_blocked: host `{host}` is blocked by browser network policy "
        "(an internal address; list it in `browser.allowed_hosts` to allow it)",
        code="host_blocked",
    )


def _denied(url: str, refused: UrlRefused) -> PolicyDenied:
    if refused.reason == "scheme":
        scheme = url.split(":", 1)[0] if ":" in url else ""
        return PolicyDenied(
            f"unsupported_url_scheme: `{scheme}` URLs are not allowed; only http and https are",
            code="unsupported_url_scheme",
        )
    if refused.reason == "credentials":
        return PolicyDenied(
            "url_credentials_not_allowed: URLs with credentials (user:password@) are refused",
            code="url_credentials_not_allowed",
        )
    return PolicyDenied(
        f"invalid_url: `{url}` is not a URL ({refused.message})", code="invalid_url"
    )


__all__ = ["check_url", "normalize_hosts"]
