"""Structured logging that never leaks a secret.

Log lines are JSON objects (``ts``, ``level``, ``logger``, ``msg`` and any
``extra`` fields). Two independent guards keep secrets out:

* any field whose name looks like a credential (authorization, token, secret,
  password, key, cookie, ...) has its value replaced by ``[REDACTED]``, also
  inside nested mappings such as header dicts;
* every value registered with :func:`register_secret` (API tokens, provider keys,
  MCP header values) is scrubbed from the rendered line wherever it appears.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"

_SECRET_NAME = re.compile(
    r"(authorization|token|secret|password|passwd|credential|api[-_]?key|private[-_]?key|"
    r"signing[-_]?key|encryption[-_]?key|cookie|^key$|[-_]key$|^x-api-key$)",
    re.IGNORECASE,
)

_secrets: set[str] = set()
_secrets_lock = threading.Lock()
_secret_pattern: re.Pattern[str] | None = None

# Attributes every LogRecord has; anything else came in through ``extra=``.
_STANDARD_ATTRS = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


def is_secret_name(name: str) -> bool:
    """True if a field with this name carries a credential."""
    return bool(_SECRET_NAME.search(name))


def register_secret(value: str | None) -> None:
    """Scrub ``value`` from every log line from now on (values under 4 chars are ignored)."""
    global _secret_pattern
    if not value or len(value) < 4:
        return
    with _secrets_lock:
        if value in _secrets:
            return
        _secrets.add(value)
        ordered = sorted(_secrets, key=len, reverse=True)
        _secret_pattern = re.compile("|".join(re.escape(s) for s in ordered))


def register_secrets(values: Iterable[str | None]) -> None:
    for value in values:
        register_secret(value)


def scrub(text: str) -> str:
    """Replace every registered secret value in ``text``."""
    pattern = _secret_pattern
    return pattern.sub(REDACTED, text) if pattern is not None else text


def redact(value: Any, name: str = "") -> Any:
    """A copy of ``value`` with credential-named fields replaced, recursively."""
    if name and is_secret_name(name) and value not in (None, "", {}, []):
        return REDACTED
    if isinstance(value, Mapping):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value


class JsonFormatter(logging.Formatter):
    """One JSON object per line, redacted and scrubbed."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and not key.startswith("_"):
                entry[key] = redact(value, key)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return scrub(json.dumps(entry, default=str, ensure_ascii=False))


class ScrubbingFilter(logging.Filter):
    """For handlers with a plain formatter: scrub secrets from the message."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def configure_logging(level: str = "info", stream: Any = None) -> None:
    """Install the JSON formatter on the root logger (idempotent)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_svc_handler", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler._svc_handler = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level.upper())
    # hypercorn's access log repeats request lines (with query strings); keep it quiet.
    logging.getLogger("hypercorn.access").setLevel(logging.WARNING)


__all__ = [
    "REDACTED",
    "JsonFormatter",
    "ScrubbingFilter",
    "configure_logging",
    "is_secret_name",
    "redact",
    "register_secret",
    "register_secrets",
    "scrub",
]
