"""The HTTP client a network tool uses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from .types import ToolContext


@asynccontextmanager
async def tool_http_client(ctx: ToolContext) -> AsyncIterator[httpx.AsyncClient]:
    """The engine's shared client when it has one, else a client for this call only."""
    if ctx.http is not None:
        yield ctx.http
        return
    # trust_env=False: configuration comes from the engine's settings, never from
    # the process environment (which tests and embedders do not control).
    async with httpx.AsyncClient(trust_env=False, follow_redirects=False) as client:
        yield client


__all__ = ["tool_http_client"]
