"""Named response shapes of the records the API answers with (see ``Record``).

One module per area; each lists its records in ``RECORDS``. Each schema states
the fields a client may rely on (``required``) and their types, nullable where
the engine can give null; records stay open (``additionalProperties`` is not
closed) because the engine adds fields for the clients it serves without
breaking older ones. Every record of every area joins the document's
components, so one record may name another of any area by ``ref``.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..registry import Record
from .sessions import (
    HEALTH,
    MESSAGE,
    MESSAGES,
    PROMPT_RESULT,
    RUN_STARTED,
    SESSION,
    SESSION_STATUS,
    SESSIONS,
)


def _all_records() -> tuple[Record, ...]:
    found: dict[str, Record] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for record in getattr(module, "RECORDS", ()):
            if found.setdefault(record.name, record) is not record:
                raise ValueError(f"two records are named {record.name}")
    return tuple(found.values())


RECORDS: tuple[Record, ...] = _all_records()

__all__ = [
    "HEALTH",
    "MESSAGE",
    "MESSAGES",
    "PROMPT_RESULT",
    "RECORDS",
    "RUN_STARTED",
    "SESSION",
    "SESSIONS",
    "SESSION_STATUS",
]
