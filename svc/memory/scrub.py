"""Scrub credentials from text before it moves to a wider memory tier.

A promoted record is seen by more runs than the one that wrote it, so its copy
is scrubbed first: well-known credential shapes (provider keys, access
tokens, JSON web tokens, ``password=...`` assignments) and every secret value
the engine knows (``svc.logs.register_secret``) become ``[REDACTED]``. Private
key material blocks the promotion outright: there is no safe partial copy.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import attrs

from ..logs import REDACTED
from ..logs import scrub as scrub_registered

ScrubStatus = Literal["passed", "redacted", "blocked"]

_PRIVATE_KEY = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")

_TOKEN_SHAPES = re.compile(
    r"\b(?:"
    r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic style keys
    r"|gh[pousr]_[A-Za-z0-9]{20,}"  # code-host tokens
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # chat workspace tokens
    r"|AKIA[0-9A-Z]{16}"  # cloud access key ids
    r"|AIza[0-9A-Za-z_-]{35}"  # cloud API keys
    r"|tk_[0-9a-f]{32}"  # this engine's API tokens
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JSON web tokens
    r")"
)
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}")
_ASSIGNMENT = re.compile(
    r"(?i)\b((?:[a-z0-9]+[_-])*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|"
    r"client[_-]?secret|auth))(\s*[:=]\s*)(\"[^\"]+\"|'[^']+'|[^\s,;]+)"
)


@attrs.frozen
class ScrubReport:
    status: ScrubStatus
    redactions: int = 0
    block_reason: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"status": self.status, "redactions": self.redactions}
        if self.block_reason is not None:
            wire["block_reason"] = self.block_reason
        return wire


def scrub_text(text: str) -> tuple[str, ScrubReport]:
    """The scrubbed text and what happened (see the module docstring)."""
    if _PRIVATE_KEY.search(text):
        return text, ScrubReport("blocked", 0, "private key material")
    count = 0

    def assignment(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(3) == REDACTED:
            return match.group(0)
        count += 1
        return f"{match.group(1)}{match.group(2)}{REDACTED}"

    def whole(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return REDACTED

    def bearer(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"{match.group(1)} {REDACTED}"

    out = _ASSIGNMENT.sub(assignment, text)
    out = _BEARER.sub(bearer, out)
    out = _TOKEN_SHAPES.sub(whole, out)
    registered = scrub_registered(out)
    if registered != out:
        count += max(1, registered.count(REDACTED) - out.count(REDACTED))
        out = registered
    return out, ScrubReport("redacted" if count else "passed", count)


__all__ = ["ScrubReport", "ScrubStatus", "scrub_text"]
