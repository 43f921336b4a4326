"""The event record and its wire form.

Wire form (one JSON object)::

    {"type": "message.part.updated",
     "properties": {...},
     "envelope": {"event_id": "...", "seq": 184, "schema_version": 1,
                  "occurred_at_ms": 1767225600123, "session_id": "...", "run_id": "..."}}

An event is serialised once, when it is created; every subscriber and every
stream reuses the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

SCHEMA_VERSION = 1

_SESSION_KEYS = ("sessionID", "sessionId", "session_id")
_RUN_KEYS = ("runID", "runId", "run_id")


def _first(properties: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = properties.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def session_id_of(properties: Mapping[str, Any]) -> str | None:
    return _first(properties, _SESSION_KEYS)


def run_id_of(properties: Mapping[str, Any]) -> str | None:
    return _first(properties, _RUN_KEYS)


@attrs.frozen(slots=True)
class Event:
    """One published event. ``seq`` is global and strictly increasing."""

    seq: int
    event_id: str
    type: str
    properties: Mapping[str, Any]
    occurred_at_ms: int
    session_id: str | None = None
    run_id: str | None = None
    topic: str | None = None
    """A domain stream key (``goal/<id>``, ``automations``) for filtered replay."""
    data: bytes = b""
    """The serialised wire form (see module docstring)."""

    def envelope(self) -> dict[str, Any]:
        env: dict[str, Any] = {
            "event_id": self.event_id,
            "seq": self.seq,
            "schema_version": SCHEMA_VERSION,
            "occurred_at_ms": self.occurred_at_ms,
        }
        if self.session_id is not None:
            env["session_id"] = self.session_id
        if self.run_id is not None:
            env["run_id"] = self.run_id
        return env

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "properties": dict(self.properties), "envelope": self.envelope()}

    def to_record(self) -> dict[str, Any]:
        """The flat shape of ``GET /runs/{id}/events``."""
        record = self.envelope()
        record["event_type"] = self.type
        record["payload"] = dict(self.properties)
        return record


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str).encode


def _wire_bytes(
    type: str,
    properties: Mapping[str, Any],
    event_id: str,
    seq: int,
    occurred_at_ms: int,
    session_id: str | None,
    run_id: str | None,
) -> bytes:
    # Built by hand around one encode() of the properties: publish() is on the
    # hot path of every streamed token, and the envelope's shape is fixed.
    tail = ""
    if session_id is not None:
        tail += ',"session_id":' + _encode(session_id)
    if run_id is not None:
        tail += ',"run_id":' + _encode(run_id)
    return (
        f'{{"type":{_encode(type)},"properties":{_encode(properties)},"envelope":'
        f'{{"event_id":"{event_id}","seq":{seq},"schema_version":{SCHEMA_VERSION},'
        f'"occurred_at_ms":{occurred_at_ms}{tail}}}}}'
    ).encode()


def make_event(
    *,
    seq: int,
    event_id: str,
    type: str,
    properties: Mapping[str, Any],
    occurred_at_ms: int,
    session_id: str | None,
    run_id: str | None,
    topic: str | None,
) -> Event:
    session_id = session_id or session_id_of(properties)
    run_id = run_id or run_id_of(properties)
    data = _wire_bytes(type, properties, event_id, seq, occurred_at_ms, session_id, run_id)
    return Event(seq, event_id, type, properties, occurred_at_ms, session_id, run_id, topic, data)


def event_from_row(
    seq: int,
    event_id: str,
    type: str,
    occurred_at_ms: int,
    session_id: str | None,
    run_id: str | None,
    topic: str | None,
    body: bytes | str,
) -> Event:
    data = body.encode() if isinstance(body, str) else bytes(body)
    wire = json.loads(data)
    return Event(
        seq,
        event_id,
        type,
        wire.get("properties", {}),
        occurred_at_ms,
        session_id,
        run_id,
        topic,
        data,
    )
