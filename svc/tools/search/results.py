"""What every search backend returns."""

from __future__ import annotations

import html
import re
from typing import Any

import attrs

from ..text import clip

MAX_SNIPPET_CHARS = 500
_TAGS = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


@attrs.frozen
class SearchHit:
    title: str
    url: str
    snippet: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"title": self.title, "url": self.url, "snippet": self.snippet}


def clean_snippet(raw: Any) -> str:
    """Plain, single-line text: backends return highlight tags, entities and long page text."""
    if not isinstance(raw, str):
        return ""
    text = _SPACE.sub(" ", html.unescape(_TAGS.sub("", raw))).strip()
    return clip(text, MAX_SNIPPET_CHARS)


def hits_from(items: Any, *, snippet_key: str, limit: int) -> list[SearchHit]:
    """Hits from a backend's result list; entries without a URL are skipped."""
    hits: list[SearchHit] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str) or not item["url"]:
            continue
        title = clean_snippet(item.get("title")) or item["url"]
        hits.append(
            SearchHit(title=title, url=item["url"], snippet=clean_snippet(item.get(snippet_key)))
        )
        if len(hits) >= limit:
            break
    return hits


__all__ = ["MAX_SNIPPET_CHARS", "SearchHit", "clean_snippet", "hits_from"]
