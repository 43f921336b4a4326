"""A self-hosted SearXNG instance: ``GET /search?q=&format=json``."""

from __future__ import annotations

import attrs
import httpx

from .backend import field
from .request import request_json
from .results import SearchHit, hits_from


@attrs.frozen
class SearxngSearch:
    base_url: str
    engines: str | None = None
    name: str = "searxng"

    async def search(self, client: httpx.AsyncClient, query: str, limit: int) -> list[SearchHit]:
        params = {"q": query, "format": "json"}
        if self.engines:
            params["engines"] = self.engines
        url = self.base_url.rstrip("/") + "/search"
        data = await request_json(client, self.name, "GET", url, params=params)
        return hits_from(field(data, "results"), snippet_key="content", limit=limit)


__all__ = ["SearxngSearch"]
