"""Connection parameters from a ``postgresql://`` URL, and a form of it safe to log."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SCHEMES = ("postgresql", "postgres")


def is_postgresql_url(url: str) -> bool:
    return url.split(":", 1)[0].lower() in SCHEMES


def redacted(url: str) -> str:
    """``url`` without its password (in the authority or a ``password=`` parameter)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{hostport}"
    query = urlencode(
        [
            (k, "***" if k.lower() == "password" else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ],
        safe="/*",
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


__all__ = ["SCHEMES", "is_postgresql_url", "redacted"]
