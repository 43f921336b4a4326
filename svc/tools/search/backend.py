"""The interface every search backend implements."""

from __future__ import annotations

from typing import Any, Protocol

import httpx

from .results import SearchHit


class SearchBackend(Protocol):
    # Read-only, so frozen attrs backends (whose fields cannot be set) implement it.
    @property
    def name(self) -> str: ...

    async def search(self, client: httpx.AsyncClient, query: str, limit: int) -> list[SearchHit]:
        """Up to ``limit`` hits; raise ToolFailed on any failure."""
        ...


def field(data: Any, *path: str) -> Any:
    """``data[path[0]][path[1]]...`` or None when any step is missing or not an object."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


__all__ = ["SearchBackend", "field"]
