"""Server-sent events, decoded one line at a time (no I/O).

The HTTP layer hands over lines as the response yields them; the decoder
follows the WHATWG rules (fields accumulate until a blank line dispatches the
event, ``:`` lines are comments, one optional space after the colon is dropped)
so every wire parser sees whole events.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple


class SSEEvent(NamedTuple):
    """One dispatched event (a NamedTuple, not an attrs record: one is built per
    streamed delta, and tuple construction is about twice as fast)."""

    data: str
    event: str = "message"
    id: str | None = None


class SSEDecoder:
    """Feed lines (without their line terminator); get an event when one completes."""

    __slots__ = ("_data", "_event", "_id")

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None

    def feed(self, line: str) -> SSEEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith("data: "):  # the hot path: one per streamed delta
            self._data.append(line[6:])
            return None
        if line[0] == ":":
            return None
        field, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id":
            self._id = value
        # "retry" and unknown fields mean nothing to a one-shot request.
        return None

    def flush(self) -> SSEEvent | None:
        """The event still pending when the stream ended without its blank line."""
        return self._dispatch()

    def _dispatch(self) -> SSEEvent | None:
        if not self._data:
            self._event = ""
            return None
        data = self._data[0] if len(self._data) == 1 else "\n".join(self._data)
        event = SSEEvent(data, self._event or "message", self._id)
        self._data = []
        self._event = ""
        return event


def json_payloads(data: str) -> list[Any]:
    """The JSON values in one event's data.

    Well-formed servers put one JSON document per event. Some OpenAI-compatible
    servers omit the blank line between events, so several ``data:`` lines
    arrive as one event; when the joined text is not JSON, each line is tried
    on its own. Unparseable lines are dropped (the caller decides whether a
    missing terminator makes the stream incomplete).
    """
    try:
        return [json.loads(data)]
    except ValueError:
        pass
    values = []
    for line in data.split("\n"):
        try:
            values.append(json.loads(line))
        except ValueError:
            continue
    return values
