"""The hosted search service: ``POST <search_url> {query, limit}``."""

from __future__ import annotations

import attrs
import httpx

from .backend import field
from .request import request_json
from .results import SearchHit, hits_from


@attrs.frozen
class HostedSearch:
    url: str
    name: str = "hosted"

    async def search(self, client: httpx.AsyncClient, query: str, limit: int) -> list[SearchHit]:
        body = {"query": query, "limit": limit}
        data = await request_json(client, self.name, "POST", self.url, json=body)
        return hits_from(field(data, "results"), snippet_key="snippet", limit=limit)


__all__ = ["HostedSearch"]
