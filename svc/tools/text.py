"""Small text helpers shared by the file and web tools."""

from __future__ import annotations

# A NUL byte in the first few KiB is the same heuristic git and grep use.
BINARY_SNIFF_BYTES = 8192


def looks_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def decode_text(data: bytes, encoding: str | None = None) -> str:
    """Decode leniently: a stray bad byte must not make a whole file unreadable."""
    try:
        return data.decode(encoding or "utf-8", errors="replace")
    except LookupError:  # an unknown charset named by a server
        return data.decode("utf-8", errors="replace")


def clip(text: str, limit: int, *, marker: str = "…") -> str:
    """``text`` cut to at most ``limit`` characters (marker included)."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(marker))] + marker


__all__ = ["BINARY_SNIFF_BYTES", "clip", "decode_text", "looks_binary"]
