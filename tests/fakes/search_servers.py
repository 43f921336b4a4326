"""Loopback fakes of each web search backend, speaking that backend's wire shape.

Each fake answers only a correctly authenticated request (401 otherwise),
honours the backend's result-count parameter, and records every request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import attrs

from .web_server import Reply, Request, WebServer, json_reply, open_web_server


@attrs.frozen
class Hit:
    title: str
    url: str
    snippet: str


DEFAULT_HITS = (
    Hit(
        "Trio documentation",
        "https://trio.readthedocs.io/",
        "Trio: a friendly Python library for async concurrency",
    ),
    Hit(
        "Structured concurrency",
        "https://example.org/structured",
        "Notes on <strong>nurseries</strong> &amp; cancel scopes",
    ),
    Hit("Third result", "https://example.org/third", "more text"),
)


def _count(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


@asynccontextmanager
async def open_brave_server(
    api_key: str, hits: Sequence[Hit] = DEFAULT_HITS
) -> AsyncIterator[WebServer]:
    """``GET /res/v1/web/search?q=&count=`` with ``X-Subscription-Token`` → ``web.results``."""

    def search(request: Request) -> Reply:
        if request.headers.get("x-subscription-token") != api_key:
            return json_reply({"error": "unauthorized"}, 401)
        count = _count(request.param("count"), 20)
        results = [{"title": h.title, "url": h.url, "description": h.snippet} for h in hits[:count]]
        return json_reply(
            {
                "type": "search",
                "query": {"original": request.param("q")},
                "web": {"results": results},
            }
        )

    async with open_web_server({"/res/v1/web/search": search}) as server:
        yield server


@asynccontextmanager
async def open_exa_server(
    api_key: str, hits: Sequence[Hit] = DEFAULT_HITS
) -> AsyncIterator[WebServer]:
    """``POST /search {query, numResults}`` with ``x-api-key`` → ``results[{title, url, text}]``."""

    def search(request: Request) -> Reply:
        if request.method != "POST":
            return Reply(405)
        if request.headers.get("x-api-key") != api_key:
            return json_reply({"error": "invalid api key"}, 401)
        body = json.loads(request.body)
        count = int(body.get("numResults", 10))
        results = [
            {"id": h.url, "title": h.title, "url": h.url, "text": h.snippet} for h in hits[:count]
        ]
        return json_reply({"requestId": "req-1", "results": results})

    async with open_web_server({"/search": search}) as server:
        yield server


@asynccontextmanager
async def open_searxng_server(hits: Sequence[Hit] = DEFAULT_HITS) -> AsyncIterator[WebServer]:
    """``GET /search?q=&format=json`` → ``results[{title, url, content}]`` (no key)."""

    def search(request: Request) -> Reply:
        if request.param("format") != "json":
            return Reply(403, b"format not allowed")
        results = [
            {"title": h.title, "url": h.url, "content": h.snippet, "engine": "fake"} for h in hits
        ]
        return json_reply(
            {"query": request.param("q"), "number_of_results": len(results), "results": results}
        )

    async with open_web_server({"/search": search}) as server:
        yield server


@asynccontextmanager
async def open_hosted_server(
    hits: Sequence[Hit] = DEFAULT_HITS, path: str = "/search"
) -> AsyncIterator[WebServer]:
    """``POST <path> {query, limit}`` → ``{results: [{title, url, snippet}]}``."""

    def search(request: Request) -> Reply:
        if request.method != "POST":
            return Reply(405)
        body = json.loads(request.body)
        limit = int(body.get("limit", 5))
        results = [{"title": h.title, "url": h.url, "snippet": h.snippet} for h in hits[:limit]]
        return json_reply({"query": body.get("query"), "results": results})

    async with open_web_server({path: search}) as server:
        yield server
