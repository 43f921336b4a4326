"""What a connector may point at and send: its URL, name and headers.

This is a local runtime, so MCP servers on loopback and private addresses are
allowed. URLs carrying credentials (``https://user:pass@host``) are refused: a
secret belongs in ``headers`` (or in the environment, referenced as
``${env:NAME}``), where it is never shown, logged or put in an event.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit

from ..errors import ValidationFailed
from ..logs import REDACTED, is_secret_name, register_secret
from ..net.guard import check_operator_url
from .errors import McpStdioTransportDenied

MAX_NAME = 64
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_ENV_REF = re.compile(r"\$\{(env|bearer_env):([A-Za-z_][A-Za-z0-9_]*)\}")


def check_name(raw: str) -> str:
    """The connector name, trimmed; it appears in paths (``/mcp/{name}``) and tool IDs."""
    name = raw.strip()
    if not name:
        raise ValidationFailed("`name` must not be empty", field="name")
    if len(name) > MAX_NAME:
        raise ValidationFailed(f"`name` allows at most {MAX_NAME} characters", field="name")
    if "/" in name or any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ValidationFailed("`name` must not contain `/` or control characters", field="name")
    return name


def check_transport(raw: str) -> str:
    """The server URL: ``http(s)://host[:port]/path``, without credentials.

    The reference's ``http:https://...`` prefix form is accepted and unwrapped.
    """
    url = raw.strip()
    if url.lower().startswith("stdio:"):
        raise McpStdioTransportDenied(field="transport")
    for prefix in ("http:", "https:"):
        rest = url[len(prefix) :]
        if url.lower().startswith(prefix) and rest.lower().startswith(("http://", "https://")):
            url = rest
    try:
        parts = urlsplit(url)
        if parts.port == 0:  # .port itself raises ValueError for other bad ports
            raise ValueError("port 0")
    except ValueError:
        raise ValidationFailed("`transport` is not a valid URL", field="transport") from None
    # The operator's rule of the shared guard: http(s), no credentials in the URL (they
    # belong in `headers`); a local server is normal, so no address checks.
    url = check_operator_url(url, field="transport")
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if is_secret_name(key):
            # An API key in the query string still stays out of the logs.
            register_secret(value)
    return url


def check_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Header names must be HTTP tokens and values single-line strings."""
    checked: dict[str, str] = {}
    for name, value in headers.items():
        field = f"headers[{name}]"
        if not isinstance(name, str) or not _HEADER_NAME.match(name):
            raise ValidationFailed(f"`{field}` is not a valid header name", field=field)
        if not isinstance(value, str):
            raise ValidationFailed(f"`{field}` must be a string", field=field)
        if "\r" in value or "\n" in value:
            raise ValidationFailed(f"`{field}` must be a single line", field=field)
        if name.lower() in (
            "mcp-session-id",
            "mcp-protocol-version",
            "content-type",
            "accept",
            "host",
        ):
            raise ValidationFailed(f"`{field}` is managed by the MCP transport", field=field)
        checked[name] = value
    return checked


def resolve_headers(headers: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """Header values with ``${env:NAME}`` references replaced from the environment
    (``${bearer_env:NAME}`` becomes ``Bearer <value>``).

    Every resolved value is registered as a secret, so it is scrubbed from logs.
    Raises ValidationFailed naming the header (never its value) if a variable is unset.
    """
    resolved: dict[str, str] = {}
    for name, value in headers.items():

        def substitute(match: re.Match[str], header: str = name) -> str:
            kind, variable = match.group(1), match.group(2)
            found = environ.get(variable)
            if found is None or found == "":
                raise ValidationFailed(
                    f"header `{header}` refers to environment variable {variable}, "
                    "which is not set",
                    field=f"headers[{header}]",
                )
            return f"Bearer {found}" if kind == "bearer_env" else found

        text = _ENV_REF.sub(substitute, value)
        register_secret(text)
        # "Bearer <token>": the token alone may show up elsewhere (an echo, an error).
        if " " in text:
            register_secret(text.split(" ", 1)[1])
        resolved[name] = text
    return resolved


def header_values(headers: Mapping[str, str], environ: Mapping[str, str]) -> tuple[str, ...]:
    """Every value these headers may send (references resolved where set, ``Bearer`` tokens
    alone too), longest first: what :func:`scrub_values` removes from server-supplied text."""
    values: set[str] = set()
    for value in headers.values():
        text = _ENV_REF.sub(lambda m: environ.get(m.group(2)) or "", value)
        for candidate in (value, text, text.split(" ", 1)[1] if " " in text else ""):
            if len(candidate.strip()) >= 4:
                values.add(candidate.strip())
    return tuple(sorted(values, key=len, reverse=True))


def scrub_values(text: str, values: tuple[str, ...]) -> str:
    """``text`` with each of ``values`` replaced by ``[REDACTED]``.

    A server may echo a credential back in an error ("invalid token sk-..."); such
    text becomes a connector's ``last_error``, an event or an HTTP answer.
    """
    for value in values:
        if value in text:
            text = text.replace(value, REDACTED)
    return text


__all__ = [
    "MAX_NAME",
    "check_headers",
    "check_name",
    "check_transport",
    "header_values",
    "resolve_headers",
    "scrub_values",
]
