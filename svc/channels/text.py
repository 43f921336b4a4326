"""Splitting long answers at a platform's message-size limit."""

from __future__ import annotations


def split_message(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at paragraph boundaries.

    A paragraph longer than the limit is cut at a line end, then at a space,
    and only as a last resort inside a word. Pieces keep their text exactly,
    except the blank lines at the cuts.
    """
    text = text.strip()
    if len(text) <= limit:
        return [text] if text else []
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[: limit + 1]
        cut = -1
        for separator in ("\n\n", "\n", " "):
            position = window.rfind(separator)
            if position > limit // 4:
                cut = position
                break
        if cut == -1:
            cut = limit
        piece = rest[:cut].rstrip()
        if piece:
            pieces.append(piece)
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def preview(text: str, limit: int) -> str:
    """What a streaming message shows while an answer longer than one message grows."""
    if len(text) <= limit:
        return text
    return "…" + text[-(limit - 1) :]


__all__ = ["preview", "split_message"]
