"""Split a document into overlapping chunks of about 512 tokens.

Tokens are counted the way a reader would: every word (a run of letters,
digits and underscores) and every punctuation mark is one token. For English
prose that is close to what model tokenizers count (within about a third), it
needs no vocabulary file, and it is deterministic, which is what unchanged-file
detection and tests need.

A chunk ends at the best boundary in its last quarter: a blank line (paragraph)
first, then a line break, then the end of a sentence, and mid-text only when
there is none. The next chunk starts ``overlap`` tokens before that boundary,
so a fact that straddles two chunks is whole in one of them. Chunks are exact
slices of the source (trimmed), and each remembers the Markdown heading it
falls under, which helps a reader place a search hit.
"""

from __future__ import annotations

import bisect
import re

import attrs

MAX_TOKENS = 512
OVERLAP_TOKENS = 64

_TOKEN = re.compile(r"\w+|[^\w\s]")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_SENTENCE_END = frozenset(".!?")


@attrs.frozen
class Chunk:
    index: int
    text: str
    start: int
    """Character offset of the chunk in the source."""
    end: int
    tokens: int
    heading: str | None = None
    """The nearest Markdown heading at or before the chunk's start."""


def count_tokens(text: str) -> int:
    return sum(1 for _ in _TOKEN.finditer(text))


def chunk_text(
    text: str, *, max_tokens: int = MAX_TOKENS, overlap: int = OVERLAP_TOKENS
) -> list[Chunk]:
    """The chunks of ``text`` (none for blank text); see the module docstring."""
    if max_tokens < 2:
        raise ValueError("max_tokens must be at least 2")
    overlap = max(0, min(overlap, max_tokens // 2))
    spans = [m.span() for m in _TOKEN.finditer(text)]
    if not spans:
        return []
    headings = [(m.start(), m.group(2).strip()) for m in _HEADING.finditer(text)]
    heading_starts = [h[0] for h in headings]

    def heading_at(offset: int) -> str | None:
        i = bisect.bisect_right(heading_starts, offset) - 1
        return headings[i][1] if i >= 0 else None

    chunks: list[Chunk] = []
    start = 0
    n = len(spans)
    while start < n:
        end = min(start + max_tokens, n)
        if end < n:
            end = _boundary(text, spans, start, end, max_tokens)
        lo, hi = spans[start][0], spans[end - 1][1]
        piece = text[lo:hi]
        chunks.append(
            Chunk(
                index=len(chunks),
                text=piece.strip(),
                start=lo,
                end=hi,
                tokens=end - start,
                heading=heading_at(lo),
            )
        )
        if end >= n:
            break
        start = max(end - overlap, start + 1)
    return chunks


def _boundary(
    text: str, spans: list[tuple[int, int]], start: int, end: int, max_tokens: int
) -> int:
    """The token index to end a chunk at: the best break in the window's last quarter."""
    earliest = start + max(1, (max_tokens * 3) // 4)
    best_line = best_sentence = None
    for i in range(end - 1, earliest - 1, -1):
        # Between two tokens there is only whitespace.
        gap = text[spans[i - 1][1] : spans[i][0]]
        if gap.count("\n") >= 2:
            return i
        if best_line is None and "\n" in gap:
            best_line = i
        if (
            best_sentence is None
            and text[spans[i - 1][0] : spans[i - 1][1]] in _SENTENCE_END
            and gap
        ):
            best_sentence = i
    if best_line is not None:
        return best_line
    if best_sentence is not None:
        return best_sentence
    return end


__all__ = ["MAX_TOKENS", "OVERLAP_TOKENS", "Chunk", "chunk_text", "count_tokens"]
