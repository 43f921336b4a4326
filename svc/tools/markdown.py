"""HTML to Markdown for ``webfetch`` (a model reads Markdown far more cheaply)."""

from __future__ import annotations

import functools
import re
from typing import Any

_BLANK_RUNS = re.compile(r"\n{3,}")


@functools.cache
def _converter() -> Any:
    # Imported on first use: markdownify pulls in BeautifulSoup, which costs
    # tens of milliseconds at engine start-up for a tool many runs never use.
    from markdownify import ATX, MarkdownConverter

    class PageConverter(MarkdownConverter):
        """markdownify, minus elements whose text is never page content.

        markdownify already drops ``<script>`` and ``<style>``; ``<noscript>`` and
        ``<template>`` would otherwise leak their text into the page.
        """

        def convert_noscript(self, el: Any, text: str, *args: Any, **kwargs: Any) -> str:
            return ""

        def convert_template(self, el: Any, text: str, *args: Any, **kwargs: Any) -> str:
            return ""

    return PageConverter(heading_style=ATX, bullets="-")


def html_to_markdown(html: str) -> str:
    if "<" not in html:
        # No markup at all; also keeps BeautifulSoup from warning that the text
        # "looks like a URL/filename".
        return html.strip()
    text = _converter().convert(html)
    return _BLANK_RUNS.sub("\n\n", text).strip()


__all__ = ["html_to_markdown"]
