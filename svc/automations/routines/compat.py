"""Extra fields of the routine and automation v1 replies for clients written against the
published client models (issue 22): they add to the reference's shapes, never replace them.

Those clients read a record's ``id`` and a ``status`` from their own vocabulary
(``enabled``, ``disabled``, ``paused``, ``unknown``), a run's status from theirs (``queued``,
``running``, ``succeeded``, ``failed``, ``canceled``, ``unknown``), a run record at the top level
of ``GET .../runs/{id}`` and history entries under ``history``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# A routine's stored status in the clients' vocabulary (an active routine is "enabled").
_DEFINITION_STATUS = {"active": "enabled", "paused": "paused"}
# And the other way round, for bodies that send the clients' words.
DEFINITION_STATUS_ALIASES = {"enabled": "active", "disabled": "paused"}

_RUN_STATUS = {
    "queued": "queued",
    "pending_approval": "queued",
    "paused": "queued",
    "running": "running",
    "completed": "succeeded",
    "failed": "failed",
    "blocked_policy": "failed",
    "denied": "canceled",
    "cancelled": "canceled",
}


def client_run_status(status: str) -> str:
    return _RUN_STATUS.get(status, "unknown")


def definition_wire(wire: dict[str, Any], id_key: str) -> dict[str, Any]:
    """``wire`` plus ``id``; ``status`` in the clients' words (the stored word stays in
    ``state``)."""
    status = str(wire.get("status"))
    return {
        **wire,
        "id": wire[id_key],
        "status": _DEFINITION_STATUS.get(status, "unknown"),
        "state": status,
    }


def flat_run(wire: Mapping[str, Any], id_key: str) -> dict[str, Any]:
    """The run fields such clients read at the top level of ``GET .../runs/{id}``."""
    status = str(wire.get("status"))
    return {
        "id": wire["run_id"],
        "run_id": wire["run_id"],
        id_key: wire.get(id_key, wire.get("routine_id")),
        "status": client_run_status(status),
        "run_status": status,
        "started_at_ms": wire.get("started_at_ms"),
        "finished_at_ms": wire.get("finished_at_ms"),
    }


def history_entries(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``events`` as ``{event, ts_ms, ...}`` entries (a run's status moves to ``run_status``)."""
    entries = []
    for event in events:
        entry = {k: v for k, v in event.items() if k != "status"}
        entry["event"] = f"run.{event.get('status')}"
        entry["ts_ms"] = event.get("fired_at_ms")
        entry["run_status"] = event.get("status")
        entries.append(entry)
    return entries


__all__ = [
    "DEFINITION_STATUS_ALIASES",
    "client_run_status",
    "definition_wire",
    "flat_run",
    "history_entries",
]
