"""A repohost project's schema: its fingerprint and the status mapping by aliases.

The fingerprint is the lower-hex SHA-256 of the schema's compact JSON (sorted
keys), so any change of the board's fields or options is drift. The status
field is the one whose name normalises to ``status`` (lower-case, without
spaces, ``-`` and ``_``); each state is the first option matching its aliases.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .errors import SchemaInvalid
from .records import StatusMapping, StatusOption

ALIASES = {
    "todo": ("todo", "todos", "backlog", "to do"),
    "in_progress": ("inprogress", "in progress", "doing", "active"),
    "in_review": ("inreview", "in review", "review"),
    "blocked": ("blocked", "onhold", "on hold", "stalled"),
    "done": ("done", "completed", "complete", "closed"),
}


def normalize(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch not in " -_")


def fingerprint(schema: Mapping[str, Any]) -> str:
    compact = json.dumps(schema, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(compact.encode()).hexdigest()


def status_mapping(schema: Mapping[str, Any]) -> StatusMapping:
    fields = schema.get("fields")
    if not isinstance(fields, list):
        raise SchemaInvalid("the project schema has no `fields` list")
    field = next(
        (
            f
            for f in fields
            if isinstance(f, dict) and normalize(str(f.get("name", ""))) == "status"
        ),
        None,
    )
    if field is None or not isinstance(field.get("options"), list):
        raise SchemaInvalid("the project has no Status field with options")
    options = [
        StatusOption(id=str(o["id"]), name=str(o["name"]))
        for o in field["options"]
        if isinstance(o, dict) and "id" in o and "name" in o
    ]
    found: dict[str, StatusOption] = {}
    for state, aliases in ALIASES.items():
        wanted = {normalize(a) for a in aliases}
        match = next((o for o in options if normalize(o.name) in wanted), None)
        if match is None:
            raise SchemaInvalid(f"the Status field has no option for `{state}`", state=state)
        found[state] = match
    return StatusMapping(field_id=str(field.get("id")), field_name=str(field.get("name")), **found)


def expected_state(run_status: str) -> str:
    """The board state a coder run in ``run_status`` should show."""
    if run_status in ("queued", "planning"):
        return "todo"
    if run_status in ("running", "paused"):
        return "in_progress"
    if run_status in ("awaiting_approval", "completed"):
        return "in_review"
    return "blocked"


__all__ = ["ALIASES", "expected_state", "fingerprint", "normalize", "status_mapping"]
