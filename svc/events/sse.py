"""Server-Sent Events framing (pure functions, no I/O)."""

from __future__ import annotations

import json
from typing import Any

KEEPALIVE = b": keep-alive\n\n"


def frame(data: bytes | str, *, id: int | str | None = None, event: str | None = None) -> bytes:
    """One SSE frame. ``data`` must be a single line (compact JSON is)."""
    if isinstance(data, str):
        data = data.encode()
    parts = []
    if id is not None:
        parts.append(b"id: %s\n" % str(id).encode())
    if event is not None:
        parts.append(b"event: %s\n" % event.encode())
    parts.append(b"data: " + data + b"\n\n")
    return b"".join(parts)


def json_frame(payload: Any, *, id: int | str | None = None, event: str | None = None) -> bytes:
    return frame(
        json.dumps(payload, separators=(",", ":"), ensure_ascii=False, default=str),
        id=id,
        event=event,
    )


def parse_frames(text: str) -> list[dict[str, str]]:
    """Split an SSE byte stream (decoded) into frames; used by clients and tests."""
    frames = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            fields[name] = fields[name] + "\n" + value if name in fields else value
        if fields:
            frames.append(fields)
    return frames
