"""Named redaction rule sets for report text, evidence and payloads (reference §1.12).

Unlike the reference, where ``redaction_profile`` was only a label, a profile here
selects the rules:

* ``default``: credential assignments (``token=…``, ``"password": "…"``,
  ``Authorization: Bearer …``), bearer tokens, private-key blocks, credentials in
  URLs and well-known token shapes (provider keys, code-host tokens, chat tokens,
  cloud access keys, JWTs, our own intake keys);
* ``strict``: all of that plus e-mail addresses, IPv4 addresses and long opaque
  strings (32+ characters mixing letters and digits);
* ``off``: report text kept as written, except that values the engine registered as
  secrets (its API token, provider keys, connector headers) and intake keys are
  always removed: no profile may disclose them.

Every rule keeps what identifies the failure (the key name, the scheme) and replaces
only the secret material with ``[redacted]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..logs import is_secret_name, scrub

PROFILES = ("default", "strict", "off")
MARK = "[redacted]"

_KEY_WORDS = (
    r"[\w-]*?(?:api[_-]?key|apikey|token|password|passwd|pwd|secret|credentials?|"
    r"authorization|auth|cookie|session[_-]?id|signature|[_-]key)"
)
_ASSIGNMENT = re.compile(
    rf"(?i)(\b{_KEY_WORDS})([\"']?\s*[:=]\s*[\"']?)((?:bearer|basic|token)\s+)?"
    r"([^\s\"',;&]+)"
)
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{4,}")
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
)
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@")
_TOKEN_SHAPES = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{8,}|"
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|"
    r"xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|"
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
)
_INTAKE_KEY = re.compile(r"tim_intake_[0-9a-fA-F]{8,}")
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_OPAQUE = re.compile(r"\b(?=[A-Za-z0-9_+/=-]*\d)(?=[A-Za-z0-9_+/=-]*[A-Za-z])[A-Za-z0-9_+/=-]{32,}")


def _assignment(match: re.Match[str]) -> str:
    return f"{match.group(1)}{match.group(2)}{match.group(3) or ''}{MARK}"


def _always(text: str) -> str:
    return _INTAKE_KEY.sub(MARK, scrub(text)).replace("[REDACTED]", MARK)


def _default(text: str) -> str:
    text = _PRIVATE_KEY.sub(MARK, text)
    text = _URL_CREDENTIALS.sub(lambda m: f"{m.group(1)}{MARK}@", text)
    text = _ASSIGNMENT.sub(_assignment, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {MARK}", text)
    return _TOKEN_SHAPES.sub(MARK, text)


def _strict(text: str) -> str:
    text = _default(text)
    text = _EMAIL.sub(MARK, text)
    text = _IPV4.sub(MARK, text)
    return _OPAQUE.sub(lambda m: m.group(0) if MARK in m.group(0) else MARK, text)


_RULES: dict[str, Callable[[str], str]] = {
    "default": _default,
    "strict": _strict,
    "off": lambda text: text,
}


def profile_name(profile: str | None, *, redact_secrets: bool = True) -> str:
    """The profile to apply: the named one, else ``default`` (``off`` when redaction is off)."""
    if profile in _RULES:
        return str(profile)
    return "default" if redact_secrets else "off"


def redact_text(text: str, profile: str = "default") -> str:
    rules = _RULES.get(profile, _default)
    return _always(rules(text))


def redact_value(value: Any, profile: str = "default", name: str = "", depth: int = 0) -> Any:
    """A copy of a JSON value: credential-named fields replaced, strings redacted."""
    if name and is_secret_name(name) and value not in (None, "", [], {}, False):
        return MARK
    if depth > 12:
        return "[truncated]"
    if isinstance(value, Mapping):
        return {str(k): redact_value(v, profile, str(k), depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v, profile, "", depth + 1) for v in value]
    if isinstance(value, str):
        return redact_text(value, profile)
    return value
