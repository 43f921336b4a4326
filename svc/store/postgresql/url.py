"""A ``postgresql://`` URL in a form safe to log (libpq reads the URL itself)."""

from __future__ import annotations

import re

# user:password@ in the authority; password=... among the parameters.
_AUTHORITY_PASSWORD = re.compile(r"^([a-z]+://[^:/@?#]*):[^@/?#]*@", re.IGNORECASE)
_PARAMETER_PASSWORD = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)


def redacted(url: str) -> str:
    """``url`` without its password (in the authority or a ``password=`` parameter)."""
    url = _AUTHORITY_PASSWORD.sub(r"\1:***@", url, count=1)
    return _PARAMETER_PASSWORD.sub(r"\1***", url)


__all__ = ["redacted"]
