"""Brave Search API: ``GET /res/v1/web/search`` with ``X-Subscription-Token``."""

from __future__ import annotations

import attrs
import httpx

from .backend import field
from .request import request_json
from .results import SearchHit, hits_from

DEFAULT_BASE_URL = "https://api.search.brave.com"


@attrs.frozen
class BraveSearch:
    api_key: str = attrs.field(repr=False)
    base_url: str = DEFAULT_BASE_URL
    name: str = "brave"

    async def search(self, client: httpx.AsyncClient, query: str, limit: int) -> list[SearchHit]:
        data = await request_json(
            client,
            self.name,
            "GET",
            self.base_url.rstrip("/") + "/res/v1/web/search",
            params={"q": query, "count": limit},
            headers={"X-Subscription-Token": self.api_key, "Accept": "application/json"},
            secrets=[self.api_key],
        )
        return hits_from(field(data, "web", "results"), snippet_key="description", limit=limit)


__all__ = ["DEFAULT_BASE_URL", "BraveSearch"]
