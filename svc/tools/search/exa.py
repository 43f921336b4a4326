"""Exa search API: ``POST /search {query, numResults}`` with ``x-api-key``."""

from __future__ import annotations

import attrs
import httpx

from .backend import field
from .request import request_json
from .results import SearchHit, hits_from

DEFAULT_BASE_URL = "https://api.exa.ai"


@attrs.frozen
class ExaSearch:
    api_key: str = attrs.field(repr=False)
    base_url: str = DEFAULT_BASE_URL
    name: str = "exa"

    async def search(self, client: httpx.AsyncClient, query: str, limit: int) -> list[SearchHit]:
        data = await request_json(
            client,
            self.name,
            "POST",
            self.base_url.rstrip("/") + "/search",
            json={"query": query, "numResults": limit},
            headers={"x-api-key": self.api_key},
            secrets=[self.api_key],
        )
        return hits_from(field(data, "results"), snippet_key="text", limit=limit)


__all__ = ["DEFAULT_BASE_URL", "ExaSearch"]
