"""HTML to Markdown for ``webfetch`` (a model reads Markdown far more cheaply)."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from markdownify import ATX, MarkdownConverter

# Elements whose text is never page content.
_DROPPED = ("script", "style", "noscript", "template")
_BLANK_RUNS = re.compile(r"\n{3,}")


def html_to_markdown(html: str) -> str:
    if "<" not in html:
        # No markup at all; also keeps BeautifulSoup from warning that the text
        # "looks like a URL/filename".
        return html.strip()
    soup = BeautifulSoup(html, "html.parser")
    for element in soup(_DROPPED):
        element.decompose()
    text = MarkdownConverter(heading_style=ATX, bullets="-").convert_soup(soup)
    return _BLANK_RUNS.sub("\n\n", text).strip()


__all__ = ["html_to_markdown"]
