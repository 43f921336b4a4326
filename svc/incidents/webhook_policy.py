"""A webhook destination's delivery policy and its static URL checks (reference §1.16).

The static checks (no DNS) feed readiness; the delivery itself goes through the
engine's outbound-URL guard (:mod:`svc.net`), which also resolves the name, checks
every address and pins the connection to it.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import attrs

from .config import Destination

_ENV_NAME = re.compile(r"^[A-Z0-9_]+$")


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return value is True


def _int(value: Any, default: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return max(low, min(high, int(value)))


@attrs.frozen
class WebhookPolicy:
    timeout_ms: int = 5000
    max_attempts: int = 2
    payload_byte_limit: int = 65_536
    response_byte_limit: int = 4096
    allow_private_networks: bool = False
    allow_insecure_http: bool = False
    allowed_hosts: tuple[str, ...] = ()


def webhook_policy(destination: Destination) -> WebhookPolicy:
    o = destination.option
    hosts = o("allowed_hosts", "host_allowlist") or []
    return WebhookPolicy(
        timeout_ms=_int(o("timeout_ms"), 5000, 250, 15_000),
        max_attempts=_int(o("max_attempts", "retry_max_attempts"), 2, 1, 3),
        payload_byte_limit=_int(
            o("payload_byte_limit", "max_payload_bytes"), 65_536, 1024, 262_144
        ),
        response_byte_limit=_int(o("response_byte_limit", "max_response_bytes"), 4096, 512, 16_384),
        allow_private_networks=_flag(o("allow_private_networks")),
        allow_insecure_http=_flag(o("allow_insecure_http")),
        allowed_hosts=tuple(
            h.strip().rstrip(".").lower() for h in hosts if isinstance(h, str) and h.strip()
        ),
    )


def secret_env_name(ref: str | None) -> str | None:
    """The variable a ``webhook_secret_ref`` names (``env:NAME`` and the reference's spellings)."""
    if not ref:
        return None
    ref = ref.strip()
    for prefix, suffix in (("env://", ""), ("env:", ""), ("${env:", "}")):
        if ref.startswith(prefix) and ref.endswith(suffix):
            ref = ref[len(prefix) : len(ref) - len(suffix) if suffix else None]
            break
    return ref if _ENV_NAME.match(ref or "") else None


def resolve_secret(ref: str | None, environ: Mapping[str, str]) -> str | None:
    name = secret_env_name(ref)
    if name is None:
        return None
    value = (environ.get(name) or "").strip()
    return value or None


def _private_literal(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not address.is_global or address.is_multicast


@functools.lru_cache(maxsize=256)
def target_ref(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"[:500]


@functools.lru_cache(maxsize=256)
def _url_problems(
    url: str,
    allow_insecure_http: bool,
    allow_private_networks: bool,
    allowed_hosts: tuple[str, ...],
) -> tuple[str, ...]:
    """The URL's share of :func:`static_problems`: pure in its arguments, so kept per URL
    and policy (a publish re-checks readiness; the URL rarely changes between them)."""
    problems: list[str] = []
    if not url:
        problems.append("Webhook URL is missing")
    else:
        try:
            parts = urlsplit(url)
            host = (parts.hostname or "").rstrip(".").lower()
            _ = parts.port
        except ValueError:
            problems.append("Webhook URL is invalid")
        else:
            if parts.scheme == "http" and not allow_insecure_http:
                problems.append("Webhook URL must use https")
            elif parts.scheme not in ("http", "https"):
                problems.append(f"Webhook URL uses unsupported scheme `{parts.scheme}`")
            if not host:
                problems.append("Webhook URL host is missing")
            if parts.username is not None or parts.password is not None:
                problems.append("Webhook URL must not include credentials")
            if allowed_hosts and host not in allowed_hosts:
                problems.append("Webhook URL host is not in the destination allowlist")
            if host and not allow_private_networks and _private_literal(host):
                problems.append("Webhook URL points to localhost/private network")
    return tuple(problems)


def static_problems(destination: Destination, environ: Mapping[str, str]) -> list[str]:
    """Why the webhook cannot be delivered, checked without DNS (readiness)."""
    problems: list[str] = []
    policy = webhook_policy(destination)
    problems.extend(
        _url_problems(
            (destination.webhook_url or "").strip(),
            policy.allow_insecure_http,
            policy.allow_private_networks,
            policy.allowed_hosts,
        )
    )
    if not destination.webhook_secret_ref:
        problems.append("Webhook secret reference is missing")
    elif secret_env_name(destination.webhook_secret_ref) is None:
        problems.append("Webhook secret reference must be env:<VARIABLE>")
    elif resolve_secret(destination.webhook_secret_ref, environ) is None:
        problems.append("Webhook secret reference is unavailable")
    return problems
